"""One writer per session on the SQLite and PostgreSQL stores, across processes: a second
writer is refused with an error naming the holder and saying what to do, and a holder
killed with SIGKILL leaves nothing locked."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from loopwright import Options, run
from loopwright.stores import (
    OpenedSession,
    SessionBusyError,
    SessionStore,
    resume_session,
    start_transcript,
)
from loopwright.stores.postgres import PostgresStore
from loopwright.stores.sqlite import SQLiteStore
from loopwright.testing import ScriptedModel, text

# Opens the session for writing, says so, and holds it until stdin closes (or it is killed).
_HOLDER = """
import asyncio, sys
from loopwright.stores import start_transcript
from loopwright.stores.postgres import PostgresStore
from loopwright.stores.sqlite import SQLiteStore

kind, where, session_id = sys.argv[1:4]

async def main():
    store = SQLiteStore(where, cwd="/p") if kind == "sqlite" else PostgresStore(where, cwd="/p")
    opened = await start_transcript(store, session_id, "/p")
    print("holding", flush=True)
    await asyncio.to_thread(sys.stdin.read)
    opened.release()
    await store.aclose()

asyncio.run(main())
"""


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield "sqlite", str(tmp_path / "sessions.db")
        return
    port = request.getfixturevalue("postgres_port")
    yield "postgres", f"postgresql://postgres@127.0.0.1:{port}/postgres"


def _store(kind: str, where: str) -> SessionStore:
    return SQLiteStore(where, cwd="/p") if kind == "sqlite" else PostgresStore(where, cwd="/p")


@pytest.fixture
async def holder(backend: tuple[str, str]) -> AsyncIterator[tuple[subprocess.Popen[str], str]]:
    """Another process writing a fresh session; yields it and the session id."""
    kind, where = backend
    session_id = f"held-{uuid.uuid4().hex[:8]}"
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, kind, where, session_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "holding"
    try:
        yield process, session_id
    finally:
        process.kill()
        process.wait()


async def test_a_second_process_is_refused_with_who_holds_it_and_what_to_do(
    backend: tuple[str, str], holder: tuple[subprocess.Popen[str], str]
) -> None:
    process, session_id = holder
    store = _store(*backend)
    try:
        with pytest.raises(SessionBusyError) as refused:
            await resume_session(store, session_id)
    finally:
        await store.aclose()
    message = str(refused.value)
    assert f"by process {process.pid}" in message
    assert "Wait for that run to finish" in message and "fork_session=True" in message


async def test_resuming_through_run_is_refused_before_the_stream_starts(
    backend: tuple[str, str], holder: tuple[subprocess.Popen[str], str]
) -> None:
    _, session_id = holder
    kind, where = backend
    options = Options(
        model=ScriptedModel([text("never asked")]),
        setting_sources=[],
        session_store=where if kind == "postgres" else _store(kind, where),
        resume=session_id,
    )
    with pytest.raises(SessionBusyError, match="fork_session=True"):
        await run("go on", options)


async def test_a_writer_killed_with_sigkill_leaves_the_session_free(
    backend: tuple[str, str], holder: tuple[subprocess.Popen[str], str]
) -> None:
    process, session_id = holder
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    store = _store(*backend)
    try:
        opened = await _resume_when_the_server_has_noticed(store, session_id)
        assert opened.session_id == session_id
        opened.release()
    finally:
        await store.aclose()


async def _resume_when_the_server_has_noticed(
    store: SessionStore, session_id: str
) -> OpenedSession:
    """The kernel drops a file lock with its process at once; PostgreSQL drops an advisory
    lock when the backend sees its client's socket close, a moment later (no event tells
    another client when: poll, for at most 10 s)."""
    for _ in range(200):
        try:
            return await resume_session(store, session_id)
        except SessionBusyError:
            await asyncio.sleep(0.05)
    raise AssertionError(f"session {session_id} stayed locked after its writer was killed")


async def test_two_writers_in_one_process_on_separate_store_objects_conflict(
    backend: tuple[str, str],
) -> None:
    first, second = _store(*backend), _store(*backend)
    session_id = f"twice-{uuid.uuid4().hex[:8]}"
    try:
        opened = await start_transcript(first, session_id, "/p")
        with pytest.raises(SessionBusyError, match="in this process"):
            await resume_session(second, session_id)
        opened.release()
        again = await resume_session(second, session_id)  # released: free at once
        again.release()
    finally:
        await first.aclose()
        await second.aclose()
