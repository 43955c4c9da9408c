"""Permission prompts in the terminal: a ``can_use_tool`` that asks yes / no / always.

The callback runs on the event-loop thread; the question is answered on the main thread
(which owns the terminal). They meet through the REPL's event queue: the callback posts a
:class:`PermissionQuestion` and awaits the answer the main thread hands back.
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rich.markup import escape

from loopwright.cli.terminal_text import visible, visible_line
from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.types import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

Choice = Literal["yes", "no", "always"]

DENIED_MESSAGE = "The user declined this tool call. Ask them how to proceed or try another way."


# Programs whose first argument names what they do (git push vs git status): "always"
# covers that subcommand, not the whole program.
_SUBCOMMAND_PROGRAMS = frozenset(
    [
        "git",
        "npm",
        "pnpm",
        "yarn",
        "npx",
        "cargo",
        "go",
        "docker",
        "podman",
        "kubectl",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "gh",
        "make",
        "dotnet",
        "mvn",
        "gradle",
        "bundle",
        "rake",
        "apt",
        "apt-get",
        "brew",
        "systemctl",
    ]
)
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_.:+-]+")
_SEPARATORS = re.compile(r"&&|\|\||[;&|\n]")


def _command_prefix(segment: str) -> str | None:
    """``git status`` for ``git status -s``, ``touch`` for ``touch a.txt``; None when the
    command does not start with a plain program name (an assignment, a path, quoting)."""
    try:
        words = shlex.split(segment)
    except ValueError:
        return None
    if not words or not _PLAIN_WORD.fullmatch(words[0]) or words[0].startswith("-"):
        return None
    if words[0] not in _SUBCOMMAND_PROGRAMS:
        return words[0]
    second = words[1] if len(words) > 1 else "-"
    if second.startswith("-") or not _PLAIN_WORD.fullmatch(second):
        return None  # `git -C dir push`: no subcommand to scope to, so only this call
    return f"{words[0]} {second}"


def always_rules(tool_name: str, tool_input: dict[str, Any]) -> tuple[str, ...]:
    """The allow rules an "always" answer adds: for Bash, the command's prefix per
    subcommand (``Bash(touch *)`` after ``touch a.txt``, so ``rm c.txt`` still asks);
    for any other tool, the tool."""
    if tool_name != "Bash":
        return (tool_name,)
    command = str(tool_input.get("command", ""))
    prefixes = [_command_prefix(part) for part in _SEPARATORS.split(command) if part.strip()]
    if not prefixes or None in prefixes:
        return ()  # nothing safe to generalise to: "always" approves this call only
    return tuple(dict.fromkeys(f"Bash({prefix} *)" for prefix in prefixes if prefix))


@dataclass(frozen=True, slots=True)
class PermissionQuestion:
    tool_name: str
    tool_input: dict[str, Any]
    reason: str
    # Thread-safe: settles the awaiting callback on the event loop.
    answer: Callable[[Choice], None]
    # What "always" will allow for the rest of the session.
    always: tuple[str, ...] = ()

    def always_label(self) -> str:
        return visible_line(", ".join(self.always) if self.always else "this exact call")

    def _main_key(self) -> str | None:
        return next((key for key in _SUMMARY_KEYS if key in self.tool_input), None)

    def summary(self) -> str:
        """``Bash(<the command>)``: the field that says what the call does, whole."""
        key = self._main_key()
        if key is None:
            return f"{self.tool_name}({_field_text(self.tool_input)})"
        return f"{self.tool_name}({_field_text(self.tool_input[key])})"

    def details(self) -> list[str]:
        """Every other field of the input, whole: what the user approves is all of it."""
        key = self._main_key()
        if key is None:
            return []
        return [
            f"{name}: {_field_text(value)}"
            for name, value in self.tool_input.items()
            if name != key
        ]

    def prompt_markup(self) -> str:
        """The question as rich markup: the whole input, never cut, every control and
        escape sequence in it shown, not obeyed (rich wraps what is wider than the
        terminal)."""
        lines = [
            f"[bold yellow]?[/bold yellow] allow [bold]{escape(visible(self.summary()))}[/bold]"
            + (f" [dim]({escape(visible(self.reason))})[/dim]" if self.reason else "")
        ]
        lines.extend(f"  [dim]{escape(visible(line))}[/dim]" for line in self.details())
        return "\n".join(lines)


_SUMMARY_KEYS = ("command", "file_path", "path", "pattern", "url", "query")


def _field_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class TerminalPermissions:
    """The session's ``can_use_tool``. "Always" adds allow rules for the rest of the
    session, scoped as Claude Code scopes them (a Bash command's prefix, not all of Bash),
    judged by the same rule engine as configured rules (compound commands per part)."""

    def __init__(self, events: queue.Queue[Any]) -> None:
        self._events = events
        self.always_allowed: list[str] = []
        # Calls with no prefix to generalise to (`FOO=1 ./run.sh`): approved as they are.
        self.always_exact: set[str] = set()

    def _session_allows(self, name: str, input: dict[str, Any], cwd: str) -> bool:
        if _call_key(name, input) in self.always_exact:
            return True
        if not self.always_allowed:
            return False
        where = Path(cwd) if cwd else Path.cwd()
        policy = PermissionPolicy(
            RuleSet.from_strings(allow=self.always_allowed), working_dirs=(where,)
        )
        return policy.evaluate(name, input, where).behavior == "allow"

    async def __call__(
        self, name: str, input: dict[str, Any], ctx: ToolPermissionContext
    ) -> PermissionResult:
        if self._session_allows(name, input, ctx.cwd):
            return PermissionResultAllow()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Choice] = loop.create_future()

        def answer(choice: Choice) -> None:
            loop.call_soon_threadsafe(_settle, answered, choice)

        rules = always_rules(name, input)
        self._events.put(PermissionQuestion(name, dict(input), ctx.reason, answer, rules))
        choice = await answered
        if choice == "always":
            self.always_allowed.extend(r for r in rules if r not in self.always_allowed)
            if not rules:
                self.always_exact.add(_call_key(name, input))
        if choice == "no":
            return PermissionResultDeny(DENIED_MESSAGE)
        return PermissionResultAllow()


def _call_key(name: str, input: dict[str, Any]) -> str:
    return json.dumps([name, input], sort_keys=True, default=str)


def _settle(future: asyncio.Future[Choice], choice: Choice) -> None:
    if not future.done():  # an interrupt may have cancelled the wait already
        future.set_result(choice)


def parse_choice(reply: str) -> Choice | None:
    """``y``/``yes``, ``n``/``no`` (or nothing: the safe default), ``a``/``always``."""
    word = reply.strip().lower()
    if word in ("y", "yes"):
        return "yes"
    if word in ("", "n", "no"):
        return "no"
    if word in ("a", "always"):
        return "always"
    return None
