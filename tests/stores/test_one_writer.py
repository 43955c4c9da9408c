"""One writer per session: a second writer is refused with what to do; nothing is lost.

The behaviour chosen: a second writer gets ``SessionBusyError`` (naming the session and
saying to wait or to pass ``fork_session=True``); it is never forked silently. Readers never
lock and never change a file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loopwright import Client, Options, query
from loopwright.messages import ResultMessage, TextBlock, UserMessage
from loopwright.stores import (
    JSONLStore,
    SessionBusyError,
    delete_session,
    list_sessions,
    rename_session,
    resume_session,
    start_transcript,
)
from loopwright.testing import ScriptedModel, text


def options(tmp_path: Path, *replies: str, **extra: object) -> Options:
    model = ScriptedModel([text(r) for r in replies])
    return Options(model=model, cwd=tmp_path, tools=[], setting_sources=[], **extra)  # type: ignore[arg-type]


def assert_busy_error_says_what_to_do(error: BaseException, session_id: str) -> None:
    message = str(error)
    assert repr(session_id) in message
    assert "Wait for that run to finish" in message and "fork_session=True" in message


async def final_result(client: Client) -> ResultMessage:
    result = None
    async for message in client.receive_response():
        if isinstance(message, ResultMessage):
            result = message
    assert result is not None
    return result


# ------------------------------------------------------------------ in one process


async def test_second_client_resuming_a_session_in_use_is_refused(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "first answer", "second answer")) as first:
        await first.query("hello")
        result = await final_result(first)
        second = Client(options(tmp_path, "never", resume=result.session_id))
        with pytest.raises(SessionBusyError) as refused:
            await second.connect()
        assert_busy_error_says_what_to_do(refused.value, result.session_id)
        assert "another Client or query in this process" in str(refused.value)
        # The first writer is unaffected and keeps its one line of history.
        await first.query("again")
        assert (await final_result(first)).result == "second answer"
    entries = await JSONLStore(cwd=tmp_path).load(result.session_id)
    prompts = [e.payload.get("content") for e in entries if e.payload.get("type") == "user"]
    assert prompts == ["hello", "again"]


async def test_two_clients_sharing_one_store_object_are_still_one_writer(
    tmp_path: Path,
) -> None:
    store = JSONLStore(tmp_path / "home", cwd=tmp_path)
    async with Client(options(tmp_path, "ok", session_store=store)) as first:
        await first.query("hello")
        session_id = (await final_result(first)).session_id
        second = Client(options(tmp_path, "never", session_store=store, resume=session_id))
        with pytest.raises(SessionBusyError) as refused:
            await second.connect()
        assert_busy_error_says_what_to_do(refused.value, session_id)
    async with Client(options(tmp_path, "back", session_store=store, resume=session_id)) as third:
        await third.query("again")
        assert (await final_result(third)).result == "back"
    await store.aclose()


async def test_query_resuming_a_session_a_client_is_writing_is_refused(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "ok")) as first:
        await first.query("hello")
        session_id = (await final_result(first)).session_id
        with pytest.raises(SessionBusyError) as refused:
            async for _ in query("more", options(tmp_path, "never", resume=session_id)):
                pass
        assert_busy_error_says_what_to_do(refused.value, session_id)


async def test_continue_conversation_onto_a_session_in_use_is_refused(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "ok")) as first:
        await first.query("hello")
        session_id = (await final_result(first)).session_id
        later = Client(options(tmp_path, "never", continue_conversation=True))
        with pytest.raises(SessionBusyError) as refused:
            await later.connect()
        assert_busy_error_says_what_to_do(refused.value, session_id)


async def test_fork_of_a_session_in_use_runs_in_a_new_session(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "original", "still original")) as first:
        await first.query("hello")
        original = (await final_result(first)).session_id
        path = JSONLStore(cwd=tmp_path).path_of(original)
        assert path is not None
        before = path.read_bytes()
        forked = Client(options(tmp_path, "forked", resume=original, fork_session=True))
        async with forked:
            await forked.query("branch off")
            fork_result = await final_result(forked)
        assert fork_result.session_id != original and fork_result.result == "forked"
        assert path.read_bytes() == before  # the fork only read the original
        await first.query("go on")
        assert (await final_result(first)).result == "still original"


async def test_a_session_can_be_resumed_once_its_writer_has_closed(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "one")) as first:
        await first.query("hello")
        session_id = (await final_result(first)).session_id
    async with Client(options(tmp_path, "two", resume=session_id)) as second:
        await second.query("back again")
        result = await final_result(second)
    assert result.session_id == session_id and result.result == "two"


async def test_a_query_left_at_its_result_does_not_keep_the_session_locked(
    tmp_path: Path,
) -> None:
    session_id = ""
    async for message in query("hello", options(tmp_path, "one")):
        if isinstance(message, ResultMessage):
            session_id = message.session_id
            break  # the generator is finalised later, by the event loop
    resumed = [m async for m in query("again", options(tmp_path, "two", resume=session_id))]
    final = resumed[-1]
    assert isinstance(final, ResultMessage) and final.result == "two"
    assert final.session_id == session_id


async def test_renaming_or_deleting_a_session_in_use_is_refused(tmp_path: Path) -> None:
    async with Client(options(tmp_path, "ok")) as first:
        await first.query("hello")
        session_id = (await final_result(first)).session_id
        with pytest.raises(SessionBusyError) as renamed:
            await rename_session(session_id, "new title", cwd=tmp_path)
        assert_busy_error_says_what_to_do(renamed.value, session_id)
        with pytest.raises(SessionBusyError) as deleted:
            await delete_session(session_id, cwd=tmp_path)
        assert_busy_error_says_what_to_do(deleted.value, session_id)
    await rename_session(session_id, "new title", cwd=tmp_path)
    [info] = await list_sessions(tmp_path)
    assert info.title == "new title"


async def test_readers_never_lock_or_change_a_session_being_written(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path / "home", cwd=tmp_path)
    opened = await start_transcript(store, "live", tmp_path)
    await opened.recorder.message(UserMessage("hello"))
    path = store.path_of("live")
    assert path is not None
    with path.open("ab") as raw:  # the writer is half-way through its next line
        raw.write(b'{"v":1,"kind":"message","session_id":"live","pay')
    before = path.read_bytes()
    reader = JSONLStore(tmp_path / "home", cwd=tmp_path)
    entries = await reader.load("live")
    assert any("torn last line" in str(e.payload.get("load_warning")) for e in entries)
    assert [info.session_id for info in await reader.list()] == ["live"]
    assert path.read_bytes() == before  # nothing trimmed while the writer holds the lock
    opened.release()


async def test_a_writer_that_dies_leaves_the_session_resumable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = f"""
        import asyncio, os, signal
        from loopwright.messages import UserMessage
        from loopwright.stores import JSONLStore, start_transcript

        async def main():
            opened = await start_transcript(JSONLStore({str(home)!r}, cwd="/p"), "dies", "/p")
            await opened.recorder.message(UserMessage("about to crash"))
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], check=False)
    assert done.returncode == -9
    opened = await resume_session(JSONLStore(home, cwd="/p"), "dies")
    assert opened.restored is not None and len(opened.restored.messages) == 1
    opened.release()


# ------------------------------------------------------------------ across processes

# A second process hammering the session the test process is writing: it tries to append
# (as rename/tag would) and to resume (as a second Client would) until told to stop.
_INTRUDER = """
import asyncio, json, os, sys
from pathlib import Path
from loopwright.stores import JSONLStore, SessionBusyError, resume_session
from loopwright.stores.entries import meta_entry

home, session_id, stop = sys.argv[1], sys.argv[2], Path(sys.argv[3])

async def main():
    refused, accepted, messages = 0, 0, set()
    while True:
        stopping = stop.exists()
        for attempt in ("append", "resume"):
            store = JSONLStore(home, cwd="/p")
            try:
                if attempt == "append":
                    await store.append(session_id, meta_entry(session_id, tag="intruder"))
                else:
                    (await resume_session(store, session_id)).release()
                accepted += 1
            except SessionBusyError as exc:
                refused += 1
                messages.add(str(exc))
            await store.aclose()
        if refused + accepted == 2:
            print("ready", flush=True)
        if stopping:
            break
    print(json.dumps({"refused": refused, "accepted": accepted, "messages": sorted(messages)}))

asyncio.run(main())
"""


async def test_a_second_process_cannot_write_a_session_being_written(tmp_path: Path) -> None:
    home, stop = tmp_path / "home", tmp_path / "stop"
    store = JSONLStore(home, cwd="/p")
    opened = await start_transcript(store, "busy", "/p")
    intruder = subprocess.Popen(
        [sys.executable, "-c", _INTRUDER, str(home), "busy", str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert intruder.stdout is not None
    assert intruder.stdout.readline().strip() == "ready"  # it is hammering now
    written: list[str] = []
    for n in range(200):  # big lines: each write spans many pages, so a reader sees it torn
        message = UserMessage([TextBlock(f"{n} " + "x" * 200_000)])
        await opened.recorder.message(message)
        written.append(message.uuid)
    stop.touch()
    report = json.loads(intruder.stdout.read().strip().splitlines()[-1])
    assert intruder.wait(timeout=60) == 0
    await opened.recorder.sync()
    opened.release()

    assert report["accepted"] == 0 and report["refused"] >= 2
    [message] = report["messages"]
    assert f"by process {os.getpid()}" in message
    assert "Wait for that run to finish" in message and "fork_session=True" in message
    entries = await JSONLStore(home, cwd="/p").load("busy")
    assert [e.uuid for e in entries if e.kind == "message"] == written  # none lost
    assert not any(e.kind == "meta" and "load_warning" in e.payload for e in entries)
    assert not any(e.payload.get("tag") == "intruder" for e in entries)


async def test_a_second_process_may_write_once_the_first_has_released(tmp_path: Path) -> None:
    home, stop = tmp_path / "home", tmp_path / "stop"
    store = JSONLStore(home, cwd="/p")
    opened = await start_transcript(store, "handover", "/p")
    await opened.recorder.message(UserMessage("first writer"))
    opened.release()
    stop.touch()  # one round of attempts, then report
    done = subprocess.run(
        [sys.executable, "-c", _INTRUDER, str(home), "handover", str(stop)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {"refused": 0, "accepted": 2, "messages": []}
    entries = await JSONLStore(home, cwd="/p").load("handover")
    assert [e.payload.get("tag") for e in entries if e.kind == "meta"][-1] == "intruder"
