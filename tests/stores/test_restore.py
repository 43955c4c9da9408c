"""Restoring a session: messages, state, totals, orphaned calls, branches, compactions."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.messages import (
    AssistantMessage,
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
    SessionError,
    SessionRecorder,
    StateSnapshot,
    check_pairing,
    repair_pairing,
    restore,
)
from loopwright.tools.base import FileRecord, SessionState


def _call(call_id: str, text: str = "") -> AssistantMessage:
    blocks = [TextBlock(text)] if text else []
    return AssistantMessage(
        [*blocks, ToolUseBlock(call_id, "Bash", {"command": "ls"})],
        model="scripted",
        usage=Usage(100, 10),
    )


def _result(call_id: str, text: str = "ok") -> UserMessage:
    return UserMessage([ToolResultBlock(call_id, text)])


@pytest.fixture
def store(tmp_path: Path) -> JSONLStore:
    return JSONLStore(tmp_path, cwd="/p")


async def test_restore_returns_the_conversation_in_order_without_records(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    conversation = [
        UserMessage("task"),
        _call("c1"),
        _result("c1"),
        AssistantMessage([TextBlock("done")]),
    ]
    await rec.message(SystemMessage("init", {"session_id": "s"}))
    for message in conversation:
        await rec.message(message)
    await rec.message(ResultMessage("success", False, 1, "s", 5, 5, 0.0, Usage()))
    restored = restore(await store.load("s"))
    assert restored.messages == conversation
    assert restored.repairs == [] and restored.last_uuid is not None


async def test_state_snapshot_restores_todos_read_files_and_totals(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    await rec.message(UserMessage("task"))
    snapshot = StateSnapshot(
        todos=[{"content": "write tests", "status": "in_progress"}],
        read_files={"/p/a.py": FileRecord(123, 45, False)},
        usage=Usage(1000, 200, 50, 5),
        total_cost_usd=0.25,
        model_usage={"scripted": {"input_tokens": 1000, "cost_usd": 0.25}},
        num_turns=7,
    )
    await rec.state(snapshot)
    restored = restore(await store.load("s"))
    assert restored.state == snapshot
    assert restored.todos[0]["content"] == "write tests"
    assert restored.read_files["/p/a.py"].size == 45


async def test_usage_after_the_last_snapshot_is_added_to_the_totals(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    await rec.message(UserMessage("task"))
    await rec.state(StateSnapshot(usage=Usage(1000, 100), total_cost_usd=0.5, num_turns=2))
    await rec.message(_call("c1"))  # crashed before the turn-end snapshot
    restored = restore(await store.load("s"))
    assert restored.usage == Usage(1100, 110)
    assert restored.num_turns == 3
    assert restored.total_cost_usd == 0.5  # the scripted model is free


async def test_orphaned_tool_use_gets_an_interrupted_error_result(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    for message in (UserMessage("task"), _call("c1")):
        await rec.message(message)
    restored = restore(await store.load("s"))
    closing = restored.messages[-1]
    assert isinstance(closing, UserMessage) and restored.repairs == [closing]
    block = closing.blocks[0]
    assert isinstance(block, ToolResultBlock)
    assert block.tool_use_id == "c1" and block.is_error and block.text.startswith("interrupted")
    assert check_pairing(restored.messages) == []


def test_partial_results_are_completed_in_call_order() -> None:
    two = AssistantMessage(
        [ToolUseBlock("a", "Read", {}), ToolUseBlock("b", "Read", {})], model="scripted"
    )
    partial = UserMessage([ToolResultBlock("b", "B"), TextBlock("note")])
    repaired = repair_pairing([UserMessage("task"), two, partial])
    answer = repaired.messages[2]
    assert isinstance(answer, UserMessage) and answer.uuid == partial.uuid
    ids = [b.tool_use_id for b in answer.blocks if isinstance(b, ToolResultBlock)]
    assert ids == ["a", "b"] and repaired.closed_calls == 1 and repaired.tail == []


def test_a_prompt_after_an_orphan_gets_the_closing_results_before_it() -> None:
    repaired = repair_pairing([UserMessage("task"), _call("c1"), UserMessage("are you there?")])
    assert len(repaired.messages) == 4 and check_pairing(repaired.messages) == []
    assert repaired.messages[3].content == "are you there?"


def test_results_without_a_call_are_dropped() -> None:
    stray = UserMessage([ToolResultBlock("ghost", "?")])
    repaired = repair_pairing([UserMessage("task"), stray, AssistantMessage([TextBlock("hi")])])
    assert len(repaired.messages) == 2 and repaired.dropped_results == 1


def test_repair_is_stable_across_loads() -> None:
    history = [UserMessage("task"), _call("c1")]
    assert repair_pairing(history).tail[0].uuid == repair_pairing(history).tail[0].uuid


async def test_resume_at_branches_from_that_message(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    first, second = UserMessage("one"), AssistantMessage([TextBlock("reply one")])
    later = [UserMessage("two"), AssistantMessage([TextBlock("reply two")])]
    for message in (first, second, *later):
        await rec.message(message)
    at_second = restore(await store.load("s"), resume_at=second.uuid)
    assert at_second.messages == [first, second]
    branch = SessionRecorder(store, "s", parent_uuid=at_second.last_uuid)
    alternative = UserMessage("two, differently")
    await branch.message(alternative)
    assert restore(await store.load("s")).messages == [first, second, alternative]
    # The abandoned branch is still on disk and can be resumed at explicitly.
    old = restore(await store.load("s"), resume_at=later[1].uuid)
    assert old.messages == [first, second, *later]


async def test_resume_at_an_unknown_uuid_says_what_to_pass(store: JSONLStore) -> None:
    await SessionRecorder(store, "s").message(UserMessage("task"))
    with pytest.raises(SessionError, match="not a message of this session"):
        restore(await store.load("s"), resume_at="nope")


async def test_a_compaction_entry_replaces_the_history_before_it(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    task = UserMessage("task")
    for message in (task, _call("c1"), _result("c1", "x" * 5000)):
        await rec.message(message)
    summary = UserMessage("summary of what happened")
    await rec.compaction(
        [task, summary],
        trigger="auto",
        pre_tokens=2000,
        post_tokens=20,
        summary="s",
        usage=Usage(500, 50),
        model="scripted",
    )
    after = AssistantMessage([TextBlock("continuing")])
    await rec.message(after)
    restored = restore(await store.load("s"))
    assert restored.messages == [task, summary, after]
    assert restored.compactions == 1
    assert restored.usage == Usage(600, 60)  # the tool call plus the summariser


async def test_duplicate_lines_for_one_message_are_read_once(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    task = UserMessage("task")
    await rec.message(task)
    entries = await store.load("s")
    await store.append("s", entries[0])  # a retried append
    assert restore(await store.load("s")).messages == [task]


async def test_subagent_messages_stay_out_of_the_conversation(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    call = AssistantMessage([ToolUseBlock("t1", "Agent", {"prompt": "look"})], model="scripted")
    inner = AssistantMessage([TextBlock("inner")], parent_tool_use_id="t1", usage=Usage(7, 3))
    for message in (UserMessage("task"), call, inner, _result("t1", "found it")):
        await rec.message(message)
    restored = restore(await store.load("s"))
    assert inner not in restored.messages and len(restored.messages) == 3
    assert restored.usage == Usage(7, 3)  # the subagent's usage still counts


def test_snapshot_captures_and_applies_live_session_state(tmp_path: Path) -> None:
    live = SessionState(cwd=tmp_path)
    live.todos.append({"content": "a", "status": "pending"})
    live.read_files["/x"] = FileRecord(1, 2, True)
    snapshot = StateSnapshot.capture(
        live, usage=Usage(1, 2), total_cost_usd=None, model_usage={}, num_turns=3
    )
    live.todos.clear()  # the snapshot is a copy
    fresh = SessionState(cwd=tmp_path)
    StateSnapshot.from_payload(snapshot.to_payload()).apply_to(fresh)
    assert fresh.todos == [{"content": "a", "status": "pending"}]
    assert fresh.read_files == {"/x": FileRecord(1, 2, True)}


async def test_only_the_latest_compaction_on_the_chain_counts(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    task = UserMessage("task")
    await rec.message(task)
    summary = task
    for n in range(2):
        await rec.message(_call(f"c{n}"))
        await rec.message(_result(f"c{n}"))
        summary = UserMessage(f"summary {n}")
        await rec.compaction(
            [task, summary], trigger="auto", pre_tokens=100, post_tokens=10, summary=""
        )
    restored = restore(await store.load("s"))
    assert restored.messages == [task, summary] and restored.compactions == 2
    assert restored.usage == Usage(200, 20) and restored.num_turns == 2


async def test_resume_does_not_count_a_subagents_tool_calls_as_turns(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    call = AssistantMessage([ToolUseBlock("t1", "Agent", {"prompt": "look"})], usage=Usage(1, 1))
    inner = AssistantMessage(
        [ToolUseBlock("i1", "Read", {"file_path": "/x"})],
        parent_tool_use_id="t1",
        usage=Usage(7, 3),
    )
    await rec.message(UserMessage("task"))
    await rec.message(call)
    await rec.message(inner)  # killed while the subagent ran its tool
    restored = restore(await store.load("s"))
    assert restored.num_turns == 1  # the parent's Agent call; the subagent's Read is its own
    assert restored.usage == Usage(8, 4)  # but the subagent's spend is the parent's
