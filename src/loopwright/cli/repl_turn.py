"""One response on the terminal: streamed text, tool calls, questions, the result line.

Everything the response produces arrives on one queue (messages, permission questions,
the model's questions), so the terminal is written from one place, in order. While it
runs the keyboard is watched: Esc interrupts (as Ctrl-C does), and other keys typed meanwhile
are kept for the next prompt instead of being lost.
"""

from __future__ import annotations

import queue
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from loopwright.cli.elicitation_prompt import ElicitationQuestion, ask_in_terminal
from loopwright.cli.loop_thread import LoopThread
from loopwright.cli.permission_prompt import PermissionQuestion
from loopwright.cli.render import Renderer
from loopwright.cli.repl_asking import ask_permission, ask_questions
from loopwright.cli.repl_keys import ESC, Keys
from loopwright.cli.repl_questions import UserQuestions
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.client import Client
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)

# How long to wait for the next event before looking at the keyboard again; a Ctrl-C that
# lands just before a blocking wait is noticed when it ends, so it stays short too.
KEY_CHECK_SECONDS = 0.05
BACKSPACE = ("\x7f", "\x08")


class ResponseFailed:
    """The worker raised instead of finishing with a result."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


async def _pump(client: Client, prompt: str | None, events: queue.Queue[Any]) -> None:
    """Send one prompt (None: go on with the calls that wait for approval, asking for
    each like for any other call) and forward its messages to the main thread."""
    try:
        if prompt is None:
            await client.answer_approvals({})
        else:
            await client.query(prompt)
        async for message in client.receive_response():
            events.put(message)
    except Exception as exc:  # shown to the user; the session goes on
        events.put(ResponseFailed(exc))


class ResponseView:
    def __init__(self, console: Console, events: queue.Queue[Any], keys: Keys) -> None:
        self.console = console
        self.renderer = Renderer(console)
        self.events = events
        self.keys = keys
        self.status: Status = console.status("thinking…", spinner="dots")
        self._spinning = False
        self.typed_ahead = ""

    def respond(self, thread: LoopThread, client: Client, prompt: str | None) -> None:
        """Run one prompt to its result (or error), interrupting on Esc or Ctrl-C."""
        self.typed_ahead = ""
        thread.submit(_pump(client, prompt, self.events))
        self.spin("thinking…")
        with self.keys:
            while True:
                try:
                    if self._step(thread, client):
                        return
                except KeyboardInterrupt:
                    self._interrupt(thread, client)

    def _step(self, thread: LoopThread, client: Client) -> bool:
        key = self.keys.poll(0)
        if key == ESC:
            self._interrupt(thread, client)
        elif key in BACKSPACE:
            self.typed_ahead = self.typed_ahead[:-1]
        elif key is not None and key.isprintable() and not key.startswith(ESC):
            self.typed_ahead += key
        try:
            event = self.events.get(timeout=KEY_CHECK_SECONDS)
        except queue.Empty:
            return False
        return self._handle(event)

    def _interrupt(self, thread: LoopThread, client: Client) -> None:
        # Stop the response; its "interrupted" result still arrives and ends the wait.
        self.spin(None)
        self.console.print("\n[yellow]interrupting…[/yellow]")
        thread.submit(client.interrupt())

    def _handle(self, event: Any) -> bool:
        """Show one event; True when the response is over."""
        if isinstance(event, ResponseFailed):
            self.spin(None)
            self.console.print(f"[red]error: {escape(visible(str(event.error)))}[/red]")
            return True
        if isinstance(event, PermissionQuestion):
            self.spin(None)
            ask_permission(self.console, self.keys, event)
            self.spin(f"running {escape(visible_line(event.tool_name))}…")
            return False
        if isinstance(event, ElicitationQuestion):
            self.spin(None)
            with self.keys.cooked():
                event.answer(ask_in_terminal(event.request, input, self.console.print))
            self.spin("thinking…")
            return False
        if isinstance(event, UserQuestions):
            self.spin(None)
            ask_questions(self.console, self.keys, event)
            self.spin("thinking…")
            return False
        message: Message = event
        if isinstance(message, ResultMessage):
            self.spin(None)
            self._show_result(message)
            return True
        self._show(message)
        return False

    def _show(self, message: Message) -> None:
        match message:
            case SystemMessage(subtype="init"):
                return  # every response starts with one; the greeting said it all
            case SystemMessage(subtype="compact_boundary", data=data):
                self.spin(None)
                before, after = int(data.get("pre_tokens", 0)), int(data.get("post_tokens", 0))
                self.console.print(
                    f"[dim]conversation compacted ({before:,} → {after:,} tokens)[/dim]"
                )
                return
            case StreamEvent(event={"type": "text_delta"}):
                self.spin(None)  # the spinner would tear streamed lines apart
            case StreamEvent(event={"type": "tool_call_start", "name": str() as name}):
                self.renderer.end_streamed_line()
                self.spin(f"preparing {escape(visible_line(name))}…")
                return
            case AssistantMessage(parent_tool_use_id=None) if message.tool_calls:
                self.spin(None)
                self.renderer.show(message)
                names = ", ".join(dict.fromkeys(call.name for call in message.tool_calls))
                self.spin(f"running {escape(visible_line(names))}…")
                return
            case UserMessage():
                self.spin(None)
                self.renderer.show(message)
                self.spin("thinking…")
                return
            case _:
                pass
        if not isinstance(message, StreamEvent):
            self.spin(None)
        self.renderer.show(message)

    def _show_result(self, result: ResultMessage) -> None:
        cost = "" if result.total_cost_usd is None else f" · ${result.total_cost_usd:.4f}"
        style = "red" if result.is_error else "dim"
        detail = escape(visible(f": {'; '.join(result.errors)}")) if result.errors else ""
        self.console.print(
            f"[{style}]{result.subtype}{detail} · {result.num_turns} turn(s){cost} · "
            f"{result.duration_ms / 1000:.1f} s[/{style}]"
        )

    def spin(self, label: str | None) -> None:
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
