"""The JSONL store's files on disk: flushed by sync off the event loop (evicted ones too),
new names made durable, and no descriptor left open by the fork API."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from loopwright.messages import UserMessage
from loopwright.stores import JSONLStore, SessionRecorder, fork_session
from loopwright.stores.entries import Entry


async def test_forking_through_the_api_leaves_no_file_open(tmp_path: Path) -> None:
    home = JSONLStore(cwd=tmp_path)
    await SessionRecorder(home, "s").message(UserMessage("task"))
    await home.aclose()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        await fork_session("s", cwd=tmp_path)
    assert len(os.listdir("/proc/self/fd")) == before


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
