"""Review findings: message uuids that occur twice, and turns counted on resume."""

from __future__ import annotations

import os
import threading
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
from loopwright.sessions import (
    JSONLStore,
    SessionRecorder,
    StateSnapshot,
    TranscriptCorruptError,
    fork_session,
    restore,
)
from loopwright.sessions.entries import Entry


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


async def test_forking_through_the_api_leaves_no_file_open(tmp_path: Path) -> None:
    home = JSONLStore(cwd=tmp_path)
    await SessionRecorder(home, "s").message(UserMessage("task"))
    await home.aclose()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        await fork_session("s", cwd=tmp_path)
    assert len(os.listdir("/proc/self/fd")) == before


async def test_a_complete_bad_last_line_is_reported_now_not_after_the_next_append(
    tmp_path: Path,
) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    await SessionRecorder(store, "s").message(UserMessage("task"))
    path = store.path_of("s")
    assert path is not None
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"kind":"message","oops"}\n')  # complete, so not a torn write
    with pytest.raises(TranscriptCorruptError) as caught:
        await store.load("s")
    assert caught.value.line_number == 2
    skipping = JSONLStore(tmp_path, cwd="/p", corrupt_lines="skip")
    resumed = restore(await skipping.load("s"))
    await SessionRecorder(skipping, "s", parent_uuid=resumed.last_uuid).message(UserMessage("more"))
    await skipping.aclose()
    assert [_text(m) for m in restore(await skipping.load("s")).messages] == ["task", "more"]


async def test_a_message_kept_in_a_compaction_is_not_recorded_again(store: JSONLStore) -> None:
    rec = SessionRecorder(store, "s")
    task = UserMessage("task")
    await rec.message(task)
    summary = UserMessage("summary of the work so far")
    await rec.compaction([task, summary], trigger="auto", pre_tokens=9, post_tokens=3, summary="")
    await rec.message(summary)  # the cancellation path: the history's last message
    assert restore(await store.load("s")).messages == [task, summary]


async def test_lru_evictions_leave_disk_flushes_to_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[tuple[str, bool]] = []
    real_fdatasync = os.fdatasync

    def recording_fdatasync(fd: int) -> None:
        on_loop_thread = threading.current_thread() is threading.main_thread()
        flushed.append((os.readlink(f"/proc/self/fd/{fd}"), on_loop_thread))
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fdatasync", recording_fdatasync)
    store = JSONLStore(tmp_path, cwd="/p", max_open_files=1)
    for _ in range(3):
        for sid in ("a", "b", "c"):  # each append evicts the previous session's descriptor
            await store.append(sid, Entry("state", sid, {}))
    assert flushed == []  # no flush per append on the event loop
    await store.sync()
    assert sorted(Path(path).stem for path, _ in flushed) == ["a", "b", "c"]
    assert not any(on_loop for _, on_loop in flushed)
    await store.aclose()


async def test_sync_makes_a_new_transcripts_name_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced_dirs: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced_dirs.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    store = JSONLStore(tmp_path, cwd="/p")
    await store.append("s", Entry("state", "s", {}))
    await store.sync()
    path = store.path_of("s")
    assert path is not None
    # The new file's directory, and the projects directory that gained a new project.
    assert synced_dirs == [str(path.parent), str(store.projects_dir)]
    synced_dirs.clear()
    await store.append("s", Entry("state", "s", {}))
    await store.sync()
    assert synced_dirs == []  # nothing new to name
    await store.aclose()


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
