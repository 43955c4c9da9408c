"""The REPL's elicitation callback: the question crosses to the terminal thread, each field
of the server's form is asked, and the typed answers go back to the server."""

from __future__ import annotations

import asyncio
import queue
import threading
from pathlib import Path
from typing import Any

from mcp_support import full_config

from loopwright.cli.elicitation_prompt import (
    ElicitationQuestion,
    TerminalElicitation,
    ask_in_terminal,
)
from loopwright.mcp import McpManager
from loopwright.mcp.host import ElicitationRequest, McpHost
from loopwright.tools.base import SessionState, ToolContext


def terminal(events: queue.Queue[Any], replies: list[str], shown: list[str]) -> None:
    """The REPL's main thread: answers the one question it is asked."""
    question = events.get(timeout=30)
    assert isinstance(question, ElicitationQuestion)
    answers = iter(replies)
    question.answer(ask_in_terminal(question.request, lambda _: next(answers), shown.append))


async def test_terminal_answers_reach_the_server_typed(tmp_path: Path) -> None:
    events: queue.Queue[Any] = queue.Queue()
    shown: list[str] = []
    person = threading.Thread(target=terminal, args=(events, ["y", "2026-05-05", "3"], shown))
    person.start()
    host = McpHost(on_elicitation=TerminalElicitation(events))
    async with McpManager(host=host) as manager:
        await manager.start({"full": full_config()})
        book = next(t for t in manager.tools() if t.name == "mcp__full__book")
        result = await book.call({}, ToolContext(SessionState(tmp_path), "toolu_e"))
    await asyncio.to_thread(person.join, 10)
    assert result.content == "booked 3 seats on 2026-05-05"
    assert shown == ["MCP server 'full' asks: Which date, and how many seats?"]


def test_saying_no_declines_with_a_reason() -> None:
    request = ElicitationRequest("full", "Which date?", requested_schema={"properties": {}})
    answer = ask_in_terminal(request, lambda _: "n", lambda _: None)
    assert answer.action == "decline" and answer.reason == "the user declined"
