"""A message object that recurs in a session is recorded each place it recurs, and a
message the loop records again in the same place is written once."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.stores import (
    JSONLStore,
    SessionRecorder,
    StateSnapshot,
    fork_session,
    restore,
)


@pytest.fixture
def store(tmp_path: Path) -> JSONLStore:
    return JSONLStore(tmp_path, cwd="/p")


def _result_message() -> ResultMessage:
    return ResultMessage(
        subtype="success",
        is_error=False,
        num_turns=0,
        session_id="s",
        duration_ms=0,
        duration_api_ms=0,
        total_cost_usd=0.0,
        usage=Usage(),
    )


def _text(message: AssistantMessage | UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b.text for b in message.content if isinstance(b, TextBlock))


async def _run(recorder: SessionRecorder, *messages: Message) -> None:
    """One run as the loop records it: init, its messages, the result."""
    for message in (SystemMessage("init", {}), *messages, _result_message()):
        await recorder.message(message)


async def test_a_prompt_object_sent_twice_keeps_everything_between(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    ping = UserMessage("ping")  # one object, queried twice
    await _run(rec, ping, AssistantMessage([TextBlock("a")]))
    await _run(rec, UserMessage("middle"), AssistantMessage([TextBlock("b")]))
    await _run(rec, ping, AssistantMessage([TextBlock("c")]))
    texts = [_text(m) for m in restore(await store.load("s")).messages]
    assert texts == ["ping", "a", "middle", "b", "ping", "c"]


async def test_a_prompt_reused_after_a_cancelled_run_is_recorded(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    ping = UserMessage("ping")
    for message in (SystemMessage("init", {}), ping):  # cancelled: no result
        await rec.message(message)
    await _run(rec, ping, AssistantMessage([TextBlock("pong")]))
    texts = [_text(m) for m in restore(await store.load("s")).messages]
    assert texts == ["ping", "ping", "pong"]


async def test_a_message_recorded_again_in_the_same_run_is_written_once(
    store: JSONLStore,
) -> None:
    rec = SessionRecorder(store, "s")
    results = UserMessage([ToolResultBlock("c1", "ok")])
    await rec.message(UserMessage("task"))
    await rec.message(AssistantMessage([ToolUseBlock("c1", "Bash", {})]))
    await rec.message(results)
    await rec.state(StateSnapshot())
    await rec.message(results)  # the loop's cancellation path re-records the last message
    uuids = [e.uuid for e in await store.load("s") if e.kind == "message"]
    assert len(uuids) == len(set(uuids)) == 3


async def test_a_message_kept_in_a_compaction_is_not_recorded_again(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    task = UserMessage("task")
    await rec.message(task)
    summary = UserMessage("summary of the work so far")
    await rec.compaction([task, summary], trigger="auto", pre_tokens=9, post_tokens=3, summary="")
    await rec.message(summary)  # the cancellation path: the history's last message
    assert restore(await store.load("s")).messages == [task, summary]


async def test_a_fork_up_to_a_message_stops_there_when_a_uuid_recurs(store: JSONLStore) -> None:
    first_run = SessionRecorder(store, "s")
    ping, answer = UserMessage("ping"), AssistantMessage([TextBlock("pong")])
    await first_run.message(ping)
    await first_run.message(answer)
    second_run = SessionRecorder(store, "s", parent_uuid=first_run.last_uuid)
    await second_run.message(ping)  # the same message object sent again
    await second_run.message(AssistantMessage([TextBlock("pong again")]))
    fork_id = await fork_session("s", store=store, up_to=answer.uuid)
    assert restore(await store.load(fork_id)).messages == [ping, answer]
