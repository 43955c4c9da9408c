"""resume / continue / fork / resume_at through the helpers the loop calls."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.messages import (
    AssistantMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.stores import (
    JSONLStore,
    SessionNotFoundError,
    check_pairing,
    latest_session,
    restore,
    resume_session,
    start_transcript,
)
from loopwright.stores.recorder import fork_session


async def _session(store: JSONLStore, sid: str, cwd: str, *, crash: bool = False) -> list[str]:
    opened = await start_transcript(store, sid, cwd)
    call = ToolUseBlock(f"{sid}-c1", "Bash", {"command": "make"})
    messages = [
        UserMessage(f"task for {sid}"),
        AssistantMessage([TextBlock("running make"), call], model="scripted"),
        UserMessage([ToolResultBlock(call.id, "built")]),
        AssistantMessage([TextBlock("built it")], model="scripted"),
    ]
    if crash:
        messages = messages[:2]
    for message in messages:
        await opened.recorder.message(message)
    await opened.recorder.sync()
    opened.release()  # the run is over: the session may be resumed now
    return [m.uuid for m in messages]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_resume_after_a_crash_mid_tool_closes_the_call_and_persists_it(
    tmp_path: Path,
) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    await _session(store, "s", "/p", crash=True)
    opened = await resume_session(JSONLStore(tmp_path, cwd="/p"), "s")
    assert opened.restored is not None and check_pairing(opened.restored.messages) == []
    opened.release()
    # The repair is on disk now: a second resume has nothing left to repair and no duplicates.
    again = await resume_session(JSONLStore(tmp_path, cwd="/p"), "s")
    assert again.restored is not None and again.restored.repairs == []
    assert again.restored.messages == opened.restored.messages
    await again.recorder.message(UserMessage("continue please"))
    final = restore(await store.load("s"))
    assert [m.uuid for m in final.messages][-1] == final.last_uuid
    assert len(final.messages) == 4


async def test_resume_of_an_unknown_session_names_it(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError, match="no session 'missing'") as caught:
        await resume_session(JSONLStore(tmp_path, cwd="/p"), "missing")
    assert_says_what_to_do(caught.value, "pass one of those ids")


async def test_fork_leaves_the_original_file_byte_identical(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    await _session(store, "orig", "/p")
    original = store.path_of("orig")
    assert original is not None
    before = _digest(original)
    opened = await resume_session(store, "orig", fork=True)
    await opened.recorder.message(UserMessage("a different direction"))
    await opened.recorder.sync()
    assert _digest(original) == before
    assert opened.session_id != "orig" and opened.forked_from == "orig"
    assert opened.restored is not None and len(opened.restored.messages) == 4
    forked = restore(await store.load(opened.session_id))
    assert forked.messages[-1].content == "a different direction"
    assert forked.meta["forked_from"]["session_id"] == "orig"
    assert len(restore(await store.load("orig")).messages) == 4


async def test_fork_with_resume_at_copies_only_the_history_up_to_that_message(
    tmp_path: Path,
) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    uuids = await _session(store, "orig", "/p")
    opened = await resume_session(store, "orig", fork=True, resume_at=uuids[0])
    assert opened.restored is not None
    assert [m.uuid for m in opened.restored.messages] == uuids[:1]
    assert len(await store.load(opened.session_id)) == 3  # cwd meta, the prompt, fork meta


async def test_resume_at_without_fork_branches_inside_the_same_session(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    uuids = await _session(store, "s", "/p")
    opened = await resume_session(store, "s", resume_at=uuids[2])
    assert opened.restored is not None and opened.restored.last_uuid == uuids[2]
    await opened.recorder.message(AssistantMessage([TextBlock("another ending")]))
    messages = restore(await store.load("s")).messages
    assert [m.uuid for m in messages][:3] == uuids[:3] and len(messages) == 4


async def test_latest_session_is_the_most_recent_one_in_the_cwd(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    await _session(store, "older", "/p")
    await _session(store, "newer", "/p")
    await _session(store, "other-dir", "/q")
    assert await latest_session(store, "/p") == "newer"
    assert await latest_session(store, "/nowhere") is None


async def test_fork_session_helper_keeps_message_uuids(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    uuids = await _session(store, "orig", "/p")
    new_id = await fork_session(store, "orig", new_session_id="copy")
    assert new_id == "copy"
    assert [m.uuid for m in restore(await store.load("copy")).messages] == uuids
    assert {e.session_id for e in await store.load("copy")} == {"copy"}
