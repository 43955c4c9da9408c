"""A session leaves nothing behind it needs no more: its lock file goes when its writer
stops, and deleting it removes what it kept beside its transcript and an emptied project
folder."""

from __future__ import annotations

from pathlib import Path

from loopwright import Options, run
from loopwright.stores import JSONLStore, delete_session
from loopwright.stores.locks import FileSessionLock
from loopwright.testing import ScriptedModel, text


def _options(cwd: Path, store: JSONLStore, *replies: str) -> Options:
    model = ScriptedModel([text(r) for r in replies])
    return Options(model=model, cwd=cwd, tools=[], setting_sources=[], session_store=store)


async def test_many_sessions_leave_no_lock_files(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path / "home")
    for _ in range(5):
        result = await run("hi", _options(tmp_path, store, "hello"))
        assert result.subtype == "success"

    locks = tmp_path / "home" / "locks"
    assert not locks.exists() or list(locks.iterdir()) == []


def test_a_waiter_that_opened_the_old_lock_file_locks_the_new_one(tmp_path: Path) -> None:
    path = tmp_path / "locks" / "s.lock"
    first = FileSessionLock.acquire("s", path)
    first.release()
    assert not path.exists()

    second = FileSessionLock.acquire("s", path)
    assert second.held and path.exists()
    second.release()


async def test_deleting_the_last_session_of_a_folder_removes_the_folder(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path / "home")
    result = await run("hi", _options(tmp_path, store, "hello"))
    transcript = store.path_of(result.session_id)
    assert transcript is not None
    kept = transcript.with_suffix("")  # e.g. the sandbox's quarantine
    (kept / "quarantine").mkdir(parents=True)

    assert await delete_session(result.session_id, store=store)

    assert not transcript.exists() and not kept.exists()
    assert not transcript.parent.exists()
