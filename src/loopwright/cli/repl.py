"""The interactive session: a prompt, streamed answers, tool calls, questions, commands.

The main thread owns the terminal; the Client lives on a background event loop
(:class:`LoopThread`). A response is shown by :class:`ResponseView` (repl_turn.py); the
slash commands that are the REPL's own are handled here. ``/clear`` and ``/resume``
replace the Client (a new session, or an earlier one) and keep the terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import queue
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from loopwright.cli.elicitation_prompt import (
    TerminalElicitation,
)
from loopwright.cli.line_input import LineReader
from loopwright.cli.loop_thread import LoopThread
from loopwright.cli.permission_prompt import TerminalPermissions
from loopwright.cli.repl_help import command_help
from loopwright.cli.repl_info import (
    STARTER_MEMORY,
    agent_lines,
    init_target,
    mcp_lines,
    memory_lines,
    permission_lines,
    status_lines,
)
from loopwright.cli.repl_keys import Keys
from loopwright.cli.repl_questions import TerminalQuestions
from loopwright.cli.repl_resume import (
    conversation_so_far,
    pick_session,
    recent_sessions,
    show_conversation,
)
from loopwright.cli.repl_trust import ask_trust
from loopwright.cli.repl_turn import ResponseView
from loopwright.cli.slash_commands import (
    COMMANDS,
    HELP,
    cost_table,
    goes_to_the_loop,
    parse_slash_command,
)
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.client import Client
from loopwright.errors import LoopwrightError
from loopwright.options import Options

PROMPT = "> "
Handler = Callable[[str], None]


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
        self.events: queue.Queue[Any] = queue.Queue()
        self.keys = Keys()
        self.view = ResponseView(self.console, self.events, self.keys)
        self.permissions = TerminalPermissions(self.events)
        # The REPL always streams (text appears as it is written) and always can ask.
        self.options = dataclasses.replace(
            options,
            include_partial_messages=True,
            can_use_tool=options.can_use_tool or self.permissions,
            on_elicitation=options.on_elicitation or TerminalElicitation(self.events),
            ask_user=options.ask_user or TerminalQuestions(self.events),
        )
        self.cwd = str(Path(options.cwd or os.getcwd()))
        self._thread: LoopThread | None = None
        self._client: Client | None = None
        self._commands: dict[str, Handler] = {
            "help": self._help,
            "cost": self._cost,
            "model": self._switch_model,
            "clear": self._clear,
            "resume": self._resume,
            "permissions": self._permissions,
            "mcp": lambda _: self._print_lines(mcp_lines(self.client.session)),
            "agents": lambda _: self._print_lines(agent_lines(self.client.session)),
            "memory": lambda _: self._print_lines(memory_lines(self.options, self.cwd)),
            "status": lambda _: self._print_lines(status_lines(self.client.session, self.options)),
            "init": self._init,
        }

    @property
    def thread(self) -> LoopThread:
        assert self._thread is not None, "the REPL is not running"
        return self._thread

    @property
    def client(self) -> Client:
        assert self._client is not None, "the REPL is not connected"
        return self._client

    # ------------------------------------------------------------------ session

    def run(self) -> int:
        with LoopThread() as thread:
            self._thread = thread
            self._connect(self.options)
            try:
                self._greet()
                if self.options.resume:
                    self._show_earlier(self.options.resume)
                if self.client.pending_approvals:  # a resumed session whose calls wait
                    count = len(self.client.pending_approvals)
                    self.console.print(f"[yellow]{count} call(s) wait for approval[/yellow]")
                    self.view.respond(thread, self.client, None)
                if self.initial_prompt:
                    self.console.print(f"{PROMPT}{escape(visible(self.initial_prompt))}")
                    self.view.respond(thread, self.client, self.initial_prompt)
                return self._prompt_loop()
            finally:
                self.view.spin(None)
                self._disconnect()

    def _connect(self, options: Options) -> None:
        client = Client(options)
        self.thread.run(client.connect())
        self._client = client

    def _disconnect(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception, KeyboardInterrupt):
                self.thread.run(self._client.disconnect())
            self._client = None

    def _reconnect(self, resume: str | None) -> None:
        """A new session (``resume=None``) or an earlier one, on the same terminal."""
        self._disconnect()
        self._connect(
            dataclasses.replace(
                self.options, resume=resume, session_id=None, fork_session=False, resume_at=None
            )
        )

    def _greet(self) -> None:
        session = self.client.session
        self.console.print(
            f"[bold]loopwright[/bold] [dim]· model {escape(visible_line(session.agent.model.name))}"
            f" · session {escape(visible_line(session.session_id))} · cwd "
            f"{escape(visible_line(str(session.state.cwd)))}[/dim]\n"
            "[dim]/help for commands · /exit to quit · Esc or Ctrl-C interrupts a response[/dim]"
        )

    def _show_earlier(self, session_id: str) -> None:
        store = self.options.session_store
        messages = self.thread.run(conversation_so_far(store, self.cwd, session_id))
        show_conversation(self.console, messages, session_id)

    def _prompt_loop(self) -> int:
        while True:
            try:
                line = self.reader.read(PROMPT, self.view.typed_ahead)
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                return 0
            self.view.typed_ahead = ""
            if not line.strip():
                continue
            command = parse_slash_command(line) if "\n" not in line.strip() else None
            if command is None or goes_to_the_loop(command):
                self.view.respond(self.thread, self.client, line.strip())
            elif command.name in ("exit", "quit"):
                return 0
            elif command.name in self._commands:
                self._commands[command.name](command.argument)
            else:
                self.console.print(
                    f"[red]unknown command /{escape(visible_line(command.name))}[/red]; /help"
                )

    # ------------------------------------------------------------------ commands

    def _print_lines(self, lines: list[str]) -> None:
        for line in lines:
            self.console.print(line)

    def _help(self, argument: str) -> None:
        if not argument:
            self.console.print(HELP, markup=False)
            return
        text = command_help(argument)
        if text is None:
            self.console.print(
                f"[red]no command /{escape(visible_line(argument.lstrip('/')))}[/red]; /help "
                "lists them"
            )
            return
        self.console.print(text, markup=False)

    def _cost(self, _: str) -> None:
        context = self.thread.run(_context_usage(self.client))
        self.console.print(cost_table(self.client.session, context))

    def _switch_model(self, spec: str) -> None:
        if spec:
            try:
                self.thread.run(self.client.set_model(spec))
            except LoopwrightError as exc:
                self.console.print(f"[red]{escape(visible(str(exc)))}[/red]")
                return
            # /clear and /resume start a new Client: with this model, not the first one.
            self.options = dataclasses.replace(self.options, model=spec)
        model = self.client.session.agent.model.name
        self.console.print(f"model: {escape(visible_line(model))}")

    def _clear(self, _: str) -> None:
        old = self.client.session_id
        self._reconnect(None)
        self.console.print(
            f"[dim]new conversation · session {escape(visible_line(self.client.session_id))}"
            f" (the previous one, {escape(visible_line(old))}, stays resumable)[/dim]"
        )

    def _resume(self, _: str) -> None:
        found = self.thread.run(recent_sessions(self.options.session_store, self.cwd))
        others = [past for past in found if past.session_id != self.client.session_id]
        try:
            chosen = pick_session(self.console, others)
        except (EOFError, KeyboardInterrupt):
            chosen = None
        if chosen is None:
            self.console.print("[dim]staying in this session[/dim]")
            return
        self._reconnect(chosen.session_id)
        self._show_earlier(chosen.session_id)

    def _permissions(self, _: str) -> None:
        lines = permission_lines(
            self.client.session,
            self.permissions.always_allowed,
            len(self.permissions.always_exact),
        )
        self._print_lines(lines)

    def _init(self, _: str) -> None:
        target = init_target(self.cwd)
        shown = escape(visible_line(str(target)))
        if target.exists():
            self.console.print(f"{shown} exists already; edit it (nothing was written)")
            return
        self.console.print(f"write a starter {shown}? \\[y/n] ", end="")
        with self.keys:
            key = self.keys.read().lower()
        self.console.print(key if key.isprintable() else "")
        if key != "y":
            self.console.print("[dim]nothing written[/dim]")
            return
        target.write_text(STARTER_MEMORY.format(name=target.parent.name), encoding="utf-8")
        self.console.print(f"wrote {shown}; it is read at the start of the next session")


def run_interactive(options: Options, initial_prompt: str | None = None) -> int:
    console = Console(highlight=False)
    with Keys() as keys:
        trusted = ask_trust(options, console, keys.read, str(options.cwd or os.getcwd()))
    return Repl(trusted, console=console, initial_prompt=initial_prompt).run()
