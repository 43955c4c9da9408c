"""A session is followed live from its transcript, whoever writes it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from loopwright import Options, run
from loopwright.durable import follow_session
from loopwright.messages import AssistantMessage, Message, ResultMessage, Usage, UserMessage
from loopwright.stores import SQLiteStore, message_entry
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import tool


@tool(read_only=True)
def ping() -> str:
    """Answer pong."""
    return "pong"


async def _collect(session_id: str, store: SQLiteStore) -> list[Message]:
    return [m async for m in follow_session(session_id, store, poll_seconds=0.01)]


async def test_a_follower_sees_every_message_of_a_running_session_in_order(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    reader = SQLiteStore(db)
    follower = asyncio.create_task(_collect("watched", reader))
    options = Options(
        model=ScriptedModel([tool_call("ping"), text("all done")]),
        tools=[ping],
        allowed_tools=["ping"],
        setting_sources=[],
        session_store=f"sqlite:{db}",
        session_id="watched",
    )
    result = await run("go", options)
    seen = await asyncio.wait_for(follower, timeout=10)
    await reader.aclose()
    assert [type(m).__name__ for m in seen] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "ResultMessage",
    ]
    last = seen[-1]
    assert isinstance(last, ResultMessage) and last.uuid == result.uuid


async def test_a_transcript_written_again_after_a_takeover_is_not_shown_twice(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "sessions.db")
    first_run = [UserMessage("go"), AssistantMessage([])]
    for message in first_run:
        await store.append("s", message_entry("s", message, None))
    follower = follow_session("s", store, poll_seconds=0.01)
    shown = [await anext(follower), await anext(follower)]
    # The worker died; its successor replays the session and writes it from the start.
    await store.delete("s")
    replayed: list[Message] = [UserMessage("go"), AssistantMessage([]), _result()]
    for message in replayed:
        await store.append("s", message_entry("s", message, None))
    shown += [m async for m in follower]
    await store.aclose()
    assert [type(m).__name__ for m in shown] == ["UserMessage", "AssistantMessage", "ResultMessage"]


def _result() -> ResultMessage:

    return ResultMessage(
        subtype="success",
        is_error=False,
        num_turns=0,
        session_id="s",
        duration_ms=1,
        duration_api_ms=1,
        total_cost_usd=0.0,
        usage=Usage(),
        result="ok",
    )
