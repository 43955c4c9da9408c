"""The interactive session: a prompt, streamed answers, tool calls, permission prompts.

The main thread owns the terminal; the Client lives on a background event loop
(:class:`LoopThread`). Everything the session produces — messages and permission
questions — arrives on one queue, so the terminal is written from one place, in order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import queue
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from loopwright.cli.line_input import LineReader
from loopwright.cli.loop_thread import LoopThread
from loopwright.cli.permission_prompt import PermissionQuestion, TerminalPermissions, parse_choice
from loopwright.cli.render import Renderer
from loopwright.cli.slash_commands import COMMANDS, HELP, cost_table, parse_slash_command
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.client import Client
from loopwright.errors import LoopwrightError
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)
from loopwright.options import Options

PROMPT = "> "
# A Ctrl-C that lands just before a blocking wait starts is only noticed when the wait
# ends; waiting in short slices bounds that delay.
SIGNAL_CHECK_SECONDS = 0.2


class ResponseFailed:
    """The worker raised instead of finishing with a result."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


async def _pump(client: Client, prompt: str, events: queue.Queue[Any]) -> None:
    """Send one prompt and forward its messages to the main thread."""
    try:
        await client.query(prompt)
        async for message in client.receive_response():
            events.put(message)
    except Exception as exc:  # shown to the user; the session goes on
        events.put(ResponseFailed(exc))


async def _context_usage(client: Client) -> dict[str, Any]:
    return client.get_context_usage()


class Repl:
    def __init__(
        self,
        options: Options,
        console: Console | None = None,
        initial_prompt: str | None = None,
        reader: LineReader | None = None,
    ) -> None:
        self.initial_prompt = initial_prompt
        self.reader = reader or LineReader(COMMANDS)
        self.console = console or Console(highlight=False)
        self.renderer = Renderer(self.console)
        self.events: queue.Queue[Any] = queue.Queue()
        self.permissions = TerminalPermissions(self.events)
        # The REPL always streams (text appears as it is written) and always can ask.
        self.options = dataclasses.replace(
            options,
            include_partial_messages=True,
            can_use_tool=options.can_use_tool or self.permissions,
        )
        self.status: Status = self.console.status("thinking…", spinner="dots")
        self._spinning = False

    # ------------------------------------------------------------------ session

    def run(self) -> int:
        with LoopThread() as thread:
            client = Client(self.options)
            thread.run(client.connect())
            try:
                self._greet(client)
                if self.initial_prompt:
                    self.console.print(f"{PROMPT}{escape(visible(self.initial_prompt))}")
                    self._respond(thread, client, self.initial_prompt)
                return self._prompt_loop(thread, client)
            finally:
                self._spin(None)
                with contextlib.suppress(Exception, KeyboardInterrupt):
                    thread.run(client.disconnect())

    def _greet(self, client: Client) -> None:
        session = client.session
        self.console.print(
            f"[bold]loopwright[/bold] [dim]· model {escape(visible_line(session.agent.model.name))}"
            f" · session {escape(visible_line(session.session_id))} · cwd "
            f"{escape(visible_line(str(session.state.cwd)))}[/dim]\n"
            "[dim]/help for commands · /exit to quit · Ctrl-C interrupts a response[/dim]"
        )

    def _prompt_loop(self, thread: LoopThread, client: Client) -> int:
        while True:
            try:
                line = self.reader.read(PROMPT)
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                return 0
            if not line.strip():
                continue
            command = parse_slash_command(line) if "\n" not in line.strip() else None
            if command is None or command.name == "compact":
                self._respond(thread, client, line.strip())
            elif command.name in ("exit", "quit"):
                return 0
            elif command.name == "help":
                self.console.print(HELP, markup=False)
            elif command.name == "cost":
                context = thread.run(_context_usage(client))
                self.console.print(cost_table(client.session, context))
            elif command.name == "model":
                self._switch_model(thread, client, command.argument)
            else:
                self.console.print(
                    f"[red]unknown command /{escape(visible_line(command.name))}[/red]; /help"
                )

    def _switch_model(self, thread: LoopThread, client: Client, spec: str) -> None:
        if spec:
            try:
                thread.run(client.set_model(spec))
            except LoopwrightError as exc:
                self.console.print(f"[red]{escape(visible(str(exc)))}[/red]")
                return
        self.console.print(f"model: {escape(visible_line(client.session.agent.model.name))}")

    # ------------------------------------------------------------------ one response

    def _respond(self, thread: LoopThread, client: Client, prompt: str) -> None:
        thread.submit(_pump(client, prompt, self.events))
        self._spin("thinking…")
        while True:
            try:
                try:
                    event = self.events.get(timeout=SIGNAL_CHECK_SECONDS)
                except queue.Empty:
                    continue
                if self._handle(event):
                    return
            except KeyboardInterrupt:
                # Stop the response; its "interrupted" result still arrives and ends the wait.
                self._spin(None)
                self.console.print("\n[yellow]interrupting…[/yellow]")
                thread.submit(client.interrupt())

    def _handle(self, event: Any) -> bool:
        """Show one event; True when the response is over."""
        if isinstance(event, ResponseFailed):
            self._spin(None)
            self.console.print(f"[red]error: {escape(visible(str(event.error)))}[/red]")
            return True
        if isinstance(event, PermissionQuestion):
            self._ask(event)
            return False
        message: Message = event
        if isinstance(message, ResultMessage):
            self._spin(None)
            self._show_result(message)
            return True
        self._show(message)
        return False

    def _show(self, message: Message) -> None:
        match message:
            case SystemMessage(subtype="init"):
                return  # every response starts with one; the greeting said it all
            case SystemMessage(subtype="compact_boundary", data=data):
                self._spin(None)
                before, after = int(data.get("pre_tokens", 0)), int(data.get("post_tokens", 0))
                self.console.print(
                    f"[dim]conversation compacted ({before:,} → {after:,} tokens)[/dim]"
                )
                return
            case StreamEvent(event={"type": "text_delta"}):
                self._spin(None)  # the spinner would tear streamed lines apart
            case StreamEvent(event={"type": "tool_call_start", "name": str() as name}):
                self.renderer.end_streamed_line()
                self._spin(f"preparing {escape(visible_line(name))}…")
                return
            case AssistantMessage(parent_tool_use_id=None) if message.tool_calls:
                self._spin(None)
                self.renderer.show(message)
                names = ", ".join(dict.fromkeys(call.name for call in message.tool_calls))
                self._spin(f"running {escape(visible_line(names))}…")
                return
            case UserMessage():
                self._spin(None)
                self.renderer.show(message)
                self._spin("thinking…")
                return
            case _:
                pass
        if not isinstance(message, StreamEvent):
            self._spin(None)
        self.renderer.show(message)

    def _ask(self, question: PermissionQuestion) -> None:
        self._spin(None)
        self.console.print(question.prompt_markup())
        while True:
            try:
                reply = input(f"  [y]es / [n]o / [a]lways allow {question.always_label()}: ")
            except (EOFError, KeyboardInterrupt):
                question.answer("no")
                raise KeyboardInterrupt from None  # and stop the response
            choice = parse_choice(reply)
            if choice is not None:
                question.answer(choice)
                self._spin(f"running {escape(visible_line(question.tool_name))}…")
                return
            self.console.print("  please answer y, n or a")

    def _show_result(self, result: ResultMessage) -> None:
        cost = "" if result.total_cost_usd is None else f" · ${result.total_cost_usd:.4f}"
        style = "red" if result.is_error else "dim"
        detail = escape(visible(f": {'; '.join(result.errors)}")) if result.errors else ""
        self.console.print(
            f"[{style}]{result.subtype}{detail} · {result.num_turns} turn(s){cost} · "
            f"{result.duration_ms / 1000:.1f} s[/{style}]"
        )

    def _spin(self, label: str | None) -> None:
        """Show the spinner with ``label``, or hide it (None)."""
        if label is None:
            if self._spinning:
                self.status.stop()
                self._spinning = False
            return
        self.status.update(label)
        if not self._spinning:
            self.status.start()
            self._spinning = True


def run_interactive(options: Options, initial_prompt: str | None = None) -> int:
    return Repl(options, initial_prompt=initial_prompt).run()
