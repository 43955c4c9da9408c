"""MCP elicitation in the terminal: a server's question asked of the person at the REPL.

As with permission prompts, the callback runs on the event-loop thread and posts an
:class:`ElicitationQuestion` to the REPL's event queue; the main thread (which owns the
terminal) asks each field of the server's form and hands the answers back.
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loopwright.cli.terminal_text import visible, visible_line

if TYPE_CHECKING:  # MCP loads only for sessions that use it
    from loopwright.mcp.host import ElicitationRequest, ElicitationResponse


@dataclass(frozen=True, slots=True)
class ElicitationQuestion:
    request: ElicitationRequest
    answer: Callable[[ElicitationResponse], None]  # thread-safe


class TerminalElicitation:
    """``Options.on_elicitation`` for the REPL."""

    def __init__(self, events: queue.Queue[Any]) -> None:
        self._events = events

    async def __call__(self, request: ElicitationRequest) -> ElicitationResponse:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[ElicitationResponse] = loop.create_future()

        def answer(response: ElicitationResponse) -> None:
            loop.call_soon_threadsafe(_settle, answered, response)

        self._events.put(ElicitationQuestion(request, answer))
        return await answered


def _settle(future: asyncio.Future[ElicitationResponse], value: ElicitationResponse) -> None:
    if not future.done():
        future.set_result(value)


def ask_in_terminal(
    request: ElicitationRequest, read: Callable[[str], str], say: Callable[[str], None]
) -> ElicitationResponse:
    """Ask each field; an empty answer to the first question (or "n") declines."""
    from loopwright.mcp.host import ElicitationResponse

    # Everything here is the server's text: shown, never obeyed by the terminal.
    say(visible(f"MCP server {request.server!r} asks: {request.message}"))
    if request.mode == "url":
        say(visible_line(f"  open: {request.url}"))
        done = read("  done? [y]es / [n]o: ").strip().lower()
        return ElicitationResponse("accept" if done.startswith("y") else "decline")
    properties: Mapping[str, Any] = request.requested_schema.get("properties", {})
    if read("  answer it? [y]es / [n]o: ").strip().lower()[:1] != "y":
        return ElicitationResponse("decline", reason="the user declined")
    content: dict[str, Any] = {}
    for name, schema in properties.items():
        label = schema.get("title") or name
        content[name] = _typed(read(visible_line(f"  {label}: ")), schema)
    return ElicitationResponse("accept", content)


def _typed(raw: str, schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    text = raw.strip()
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return text  # the server validates and says what it wanted
    if kind == "boolean":
        return text.lower() in ("y", "yes", "true", "1")
    return text
