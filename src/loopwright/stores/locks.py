"""One writer per session: an OS file lock held for as long as a session is being written.

Two writers on one transcript lose data: the second one's torn-line repair cuts what looks
like a torn last line while the first is in the middle of writing it, and two runs resuming
the same session each append their own branch, one of which no later resume can reach.

The lock is ``flock(LOCK_EX | LOCK_NB)`` on a small lock file. ``flock`` locks belong to the
open file, not the process, so two Clients in one process conflict exactly as two processes
do, and the kernel drops the lock when its holder dies (a crash never leaves a session
locked). The holder writes its pid into the file so the refusal can say who holds it.

Readers (load, list, export) never take the lock and never modify a transcript.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from loopwright.private_files import make_private_dirs
from loopwright.stores.base import SessionBusyError


class FileSessionLock:
    """An exclusive lock on one session, released by :meth:`release` (idempotent)."""

    def __init__(self, session_id: str, path: Path, fd: int, *, brief: bool = False) -> None:
        self.session_id = session_id
        self.path = path
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    @classmethod
    def acquire(cls, session_id: str, path: Path, *, brief: bool = False) -> FileSessionLock:
        """Take the lock now or raise :class:`SessionBusyError`; never waits.

        ``brief``: held for one write only, so the holder's pid is not recorded (saves two
        metadata writes; a refusal then says "another run").
        """
        make_private_dirs(path.parent)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise SessionBusyError(session_id, holder) from None
            except BaseException:
                os.close(fd)
                raise
            # The file we locked may have been unlinked by a holder that deleted the session
            # just before: a lock on a name nobody can open again protects nothing.
            if _same_file(fd, path):
                break
            os.close(fd)
        if not brief:  # a file left by a holder that crashed may hold its pid
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        return cls(session_id, path, fd, brief=brief)

    def release(self) -> None:
        """Drop the lock and its file: a lock file lives only while its session is being
        written, so ``locks/`` does not grow a file per session. Unlinked while still held,
        so a waiter that opened the old file sees it is gone (``acquire`` checks) and
        locks the new one."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if _same_file(fd, self.path):
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(fd)  # closing the only descriptor drops the flock

    def unlink_and_release(self) -> None:
        """Remove the lock file while still holding it (the session was deleted)."""
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
