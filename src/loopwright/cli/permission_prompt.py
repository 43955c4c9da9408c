"""Permission prompts in the terminal: a ``can_use_tool`` that asks yes / no / always.

The callback runs on the event-loop thread; the question is answered on the main thread
(which owns the terminal). They meet through the REPL's event queue: the callback posts a
:class:`PermissionQuestion` and awaits the answer the main thread hands back.
"""

from __future__ import annotations

import asyncio
import json
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from loopwright.permissions.policy import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

Choice = Literal["yes", "no", "always"]

DENIED_MESSAGE = "The user declined this tool call. Ask them how to proceed or try another way."


@dataclass(frozen=True, slots=True)
class PermissionQuestion:
    tool_name: str
    tool_input: dict[str, Any]
    reason: str
    # Thread-safe: settles the awaiting callback on the event loop.
    answer: Callable[[Choice], None]

    def summary(self) -> str:
        for key in ("command", "file_path", "path", "pattern", "url", "query"):
            if key in self.tool_input:
                return f"{self.tool_name}({self.tool_input[key]})"
        return f"{self.tool_name}({json.dumps(self.tool_input)[:200]})"


class TerminalPermissions:
    """The session's ``can_use_tool``; "always" approves the tool for the rest of the session."""

    def __init__(self, events: queue.Queue[Any]) -> None:
        self._events = events
        self.always_allowed: set[str] = set()

    async def __call__(
        self, name: str, input: dict[str, Any], ctx: ToolPermissionContext
    ) -> PermissionResult:
        if name in self.always_allowed:
            return PermissionResultAllow()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Choice] = loop.create_future()

        def answer(choice: Choice) -> None:
            loop.call_soon_threadsafe(_settle, answered, choice)

        self._events.put(PermissionQuestion(name, dict(input), ctx.reason, answer))
        choice = await answered
        if choice == "always":
            self.always_allowed.add(name)
        if choice == "no":
            return PermissionResultDeny(DENIED_MESSAGE)
        return PermissionResultAllow()


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
