"""The default store: one JSON-lines file per session, appended and never rewritten.

Layout: ``$LOOPWRIGHT_HOME/projects/<project-key>/<session-id>.jsonl``.

Appends are O(1): each session keeps an ``O_APPEND`` file descriptor open (a small LRU caps
how many), and an entry is one ``os.write`` of one complete line, done synchronously inside
the async method — a few microseconds, cheaper than a hop to a thread (see
``benchmarks/bench_sessions.py``). The line reaches the OS at once, so a killed process
loses nothing; ``sync()`` (fdatasync, in a thread) makes it survive power loss and is what
the loop calls at turn end.

One writer per session: :meth:`JSONLStore.lock_session` takes an OS file lock
(``flock`` on ``<home>/locks/<session-id>.lock``, see :mod:`loopwright.stores.locks`)
that the loop holds for as long as it writes the session. A second writer — another
process, or another Client or query in this process resuming the same session — is refused
with :class:`SessionBusyError`, which says to wait or to pass ``fork_session=True``. An
append by code that holds no lock (renaming or tagging a session, a fork's copy) takes the
lock for that one write, and is refused the same way while a run writes the session.
Loading, listing and exporting never lock and never modify a file.

A crash mid-write can leave a torn last line. Loading drops it (and reports it in-band as a
``load_warning`` meta entry); the next append first cuts the torn bytes off, so the file
stays a sequence of complete lines — only ever under the session's lock, because without
it a "torn" line may be another writer's line half-way through its write. A bad line *in
the middle* is corruption, not a torn write: ``corrupt_lines="error"`` (default) raises
:class:`TranscriptCorruptError` naming the file and line; ``"skip"`` leaves it out and
reports it as a ``load_warning``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from loopwright.ids import InvalidIdError, check_id
from loopwright.private_files import make_private_dirs
from loopwright.stores.base import (
    EntryList,
    InfoList,
    SessionError,
    SessionInfo,
    StoreBase,
    TranscriptCorruptError,
    first_prompt_text,
    loopwright_home,
    newest_first,
    project_key,
    project_of_first_entry,
    summarise_entries,
)
from loopwright.stores.entries import Entry, EntryFormatError, meta_entry
from loopwright.stores.locks import FileSessionLock

logger = logging.getLogger(__name__)

CorruptLinePolicy = Literal["error", "skip"]


def check_session_id(session_id: str) -> str:
    """Session ids become file names: refuse anything that could escape the directory."""
    try:
        return check_id(session_id)
    except InvalidIdError as exc:
        raise SessionError(str(exc)) from None


def encode_line(entry: Entry) -> bytes:
    return encode_entry(entry).encode("utf-8") + b"\n"


def encode_entry(entry: Entry) -> str:
    """Compact JSON; ASCII-escaped when the text holds lone surrogates (a file name that is
    not UTF-8, say), which UTF-8 cannot carry but JSON escapes round-trip exactly."""
    text = json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(entry.to_dict(), ensure_ascii=True, separators=(",", ":"))
    return text


class JSONLStore(StoreBase):
    """Sessions as JSONL files under ``home/projects``."""

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        corrupt_lines: CorruptLinePolicy = "error",
        max_open_files: int = 128,
    ) -> None:
        self.root = Path(home).expanduser() if home is not None else loopwright_home()
        self.projects_dir = self.root / "projects"
        self.default_project = project_key(cwd if cwd is not None else os.getcwd())
        self.corrupt_lines: CorruptLinePolicy = corrupt_lines
        self._max_open = max(1, max_open_files)
        self._fds: OrderedDict[str, int] = OrderedDict()
        self._paths: dict[str, Path] = {}
        # Sessions with appends not yet flushed to disk. sync() flushes them by path (an
        # fdatasync through any descriptor flushes the file), so closing a descriptor for
        # the LRU needs no flush of its own, which would block the event loop once per
        # append with more open sessions than descriptors.
        self._dirty: set[str] = set()
        # Directories that gained an entry (a new transcript or project) since the last
        # sync: flushing a file's data does not make its name durable, its directory's
        # fsync does.
        self._new_entries: set[Path] = set()
        # Sessions this store object is the writer of (lock_session), until released.
        self._locks: dict[str, FileSessionLock] = {}

    # ------------------------------------------------------------------ paths

    @property
    def location(self) -> str | None:
        return str(self.projects_dir)

    def path_of(self, session_id: str) -> Path | None:
        """The transcript file of an existing session, searched across projects."""
        check_session_id(session_id)
        known = self._paths.get(session_id)
        if known is not None and known.exists():
            return known
        name = f"{session_id}.jsonl"
        candidate = self.projects_dir / self.default_project / name
        if not candidate.exists():
            found = (
                sorted(self.projects_dir.glob(f"*/{name}")) if self.projects_dir.exists() else []
            )
            if not found:
                return None
            candidate = found[0]
        self._paths[session_id] = candidate
        return candidate

    def lock_path(self, session_id: str) -> Path:
        """The session's lock file: by id, so it exists before the transcript does."""
        return self.root / "locks" / f"{check_session_id(session_id)}.lock"

    # ------------------------------------------------------------------ locking

    def lock_session(self, session_id: str) -> SessionLock:
        """Become the one writer of ``session_id`` until the returned lock is released.

        Raises :class:`SessionBusyError` at once if any writer holds it — another process,
        another store object, or this one (a second run resuming the same session).
        """
        lock = FileSessionLock.acquire(session_id, self.lock_path(session_id))
        self._locks[session_id] = lock
        # A descriptor opened before the lock was held skipped the torn-tail check under
        # the lock: reopen on the next append, which checks.
        fd = self._fds.pop(session_id, None)
        if fd is not None:
            os.close(fd)
        return SessionLock(self, lock)

    def _released(self, lock: FileSessionLock) -> None:
        if self._locks.get(lock.session_id) is lock:
            del self._locks[lock.session_id]
        lock.release()

    def _holds(self, session_id: str) -> bool:
        lock = self._locks.get(session_id)
        return lock is not None and lock.held

    # ------------------------------------------------------------------ writing

    async def append(self, session_id: str, entry: Entry) -> None:
        self._write(session_id, [entry])

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        if entries:
            self._write(session_id, entries)

    def _write(self, session_id: str, entries: Sequence[Entry]) -> None:
        if self._holds(session_id):
            self._write_locked(session_id, entries)
            return
        # No run of ours writes this session: lock it for this one write.
        lock = FileSessionLock.acquire(session_id, self.lock_path(session_id), brief=True)
        try:
            path = self._writable_path(session_id, entries[0])
            fd = self._fd(session_id, entries[0])
            _cut_torn_tail(fd, path)  # the descriptor may be older than our lock
            self._write_locked(session_id, entries)
        finally:
            lock.release()

    def _write_locked(self, session_id: str, entries: Sequence[Entry]) -> None:
        fd = self._fd(session_id, entries[0])
        data = memoryview(b"".join(encode_line(e) for e in entries))
        while data:
            written = os.write(fd, data)
            data = data[written:]
        self._dirty.add(session_id)

    def _writable_path(self, session_id: str, first: Entry) -> Path:
        path = self.path_of(session_id)
        if path is None:
            project = project_of_first_entry(first, self.default_project)
            path = self.projects_dir / project / f"{session_id}.jsonl"
            self._new_entries.add(path.parent)  # the file's name must survive a power loss
            if not path.parent.is_dir():
                self._new_entries.add(self.projects_dir)  # and so must a new project's
                make_private_dirs(path.parent)
            self._paths[session_id] = path
        return path

    def _fd(self, session_id: str, first: Entry) -> int:
        """The session's append descriptor; called only with the session's lock held."""
        fd = self._fds.get(session_id)
        if fd is not None:
            self._fds.move_to_end(session_id)
            return fd
        path = self._writable_path(session_id, first)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        _cut_torn_tail(fd, path)
        self._fds[session_id] = fd
        while len(self._fds) > self._max_open:
            _, oldest = self._fds.popitem(last=False)
            os.close(oldest)  # still in _dirty if unsynced: sync() flushes it by path
        return fd

    def _take_dirty(self) -> list[Path]:
        paths = [self._paths[sid] for sid in self._dirty if sid in self._paths]
        self._dirty.clear()
        # Files first, then the directories naming them (deepest first).
        paths.extend(sorted(self._new_entries, key=lambda p: len(p.parts), reverse=True))
        self._new_entries.clear()
        return paths

    async def sync(self) -> None:
        paths = self._take_dirty()
        if paths:
            await asyncio.to_thread(_fdatasync_all, paths)

    async def aclose(self) -> None:
        _fdatasync_all(self._take_dirty())
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        for lock in list(self._locks.values()):
            self._released(lock)

    # ------------------------------------------------------------------ reading

    async def load(self, session_id: str) -> EntryList:
        path = self.path_of(session_id)
        if path is None:
            return []
        return read_transcript(path, self.corrupt_lines)

    async def list(self, project: str | None = None) -> InfoList:
        if not self.projects_dir.exists():
            return []
        dirs = [self.projects_dir / project] if project else self._project_dirs()
        infos: list[SessionInfo] = []
        for directory in dirs:
            for file in directory.glob("*.jsonl") if directory.is_dir() else []:
                infos.append(summarise_file(file))
        return newest_first(infos)

    def _project_dirs(self) -> list[Path]:
        return [d for d in self.projects_dir.iterdir() if d.is_dir()]

    async def delete(self, session_id: str) -> bool:
        """Remove the session; refused with SessionBusyError while another run writes it."""
        own = self._locks.pop(session_id, None)
        lock = own or FileSessionLock.acquire(session_id, self.lock_path(session_id))
        try:
            path = self.path_of(session_id)
            fd = self._fds.pop(session_id, None)
            self._dirty.discard(session_id)
            if fd is not None:
                os.close(fd)
            self._paths.pop(session_id, None)
            if path is not None:
                path.unlink(missing_ok=True)
                _remove_session_leftovers(path)
        finally:
            lock.unlink_and_release()
        return path is not None


def _remove_session_leftovers(transcript: Path) -> None:
    """What a deleted session kept beside its transcript (the sandbox's quarantine folder
    ``<project>/<session-id>/``), and the project folder once it holds nothing else."""
    data_dir = transcript.with_suffix("")
    if data_dir.is_dir() and not data_dir.is_symlink():
        shutil.rmtree(data_dir, ignore_errors=True)
    with contextlib.suppress(OSError):  # not empty: other sessions of the project remain
        transcript.parent.rmdir()


class SessionLock:
    """A JSONL store's writer lock on one session (see :meth:`JSONLStore.lock_session`)."""

    def __init__(self, store: JSONLStore, lock: FileSessionLock) -> None:
        self._store = store
        self._lock = lock
        self.session_id = lock.session_id

    @property
    def held(self) -> bool:
        return self._lock.held

    def release(self) -> None:
        self._store._released(self._lock)  # pyright: ignore[reportPrivateUsage]


def _fdatasync_all(paths: list[Path]) -> None:
    """Flush files (their data) and directories (their entries) to disk."""
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # deleted meanwhile: nothing left to make durable
            continue
        try:
            if path.is_dir():
                os.fsync(fd)
            else:
                os.fdatasync(fd)
        finally:
            os.close(fd)


def _cut_torn_tail(fd: int, path: Path) -> None:
    """Drop a partial last line left by a crash so the next line starts cleanly."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    end = size
    keep = 0
    while end > 0:  # scan back in chunks: a torn line can be arbitrarily long
        start = max(0, end - (1 << 16))
        cut = os.pread(fd, end - start, start).rfind(b"\n")
        if cut >= 0:
            keep = start + cut + 1
            break
        end = start
    logger.warning("%s: cut %d bytes of a torn last line before appending", path, size - keep)
    os.ftruncate(fd, keep)


def read_transcript(path: Path, corrupt_lines: CorruptLinePolicy = "error") -> EntryList:
    """Parse a transcript; see the module docstring for torn and corrupt lines."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    entries: list[Entry] = []
    warnings: list[str] = []
    # Only a last line without its newline is torn: the newline is the last byte of every
    # write. A complete line that does not parse is corruption wherever it is — dropping it
    # as torn would let the next append bury it mid-file, failing every later load.
    torn_index = len(lines) - 1 if lines[-1] else -1
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            entries.append(Entry.from_dict(json.loads(raw)))
        except (ValueError, EntryFormatError) as exc:
            reason = f"not a valid transcript entry ({exc})"
            if index == torn_index:
                warnings.append(
                    f"{path}: dropped a torn last line ({len(raw)} bytes), most likely "
                    "from a crash mid-write; every complete line was kept"
                )
            elif corrupt_lines == "error":
                raise TranscriptCorruptError(str(path), index + 1, reason) from exc
            else:
                warnings.append(f"{path}, line {index + 1}: skipped, {reason}")
    session_id = entries[0].session_id if entries else path.stem
    for warning in warnings:
        logger.warning("%s", warning)
        entries.append(meta_entry(session_id, load_warning=warning))
    return entries


_OWN_PREFIX = b'{"v":1,"kind":"'
_META_PREFIX = b'{"v":1,"kind":"meta"'
_USER_MARK = b'"type":"user"'


def _parse(line: bytes) -> Entry | None:
    try:
        return Entry.from_dict(json.loads(line))
    except (ValueError, EntryFormatError):
        return None


def summarise_file(path: Path) -> SessionInfo:
    """A listing row without parsing every message: only meta lines, the first prompt and
    the first and last lines are decoded (lines we wrote start with a fixed prefix)."""
    lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
    picked: list[Entry] = []
    prompt_found = False
    for line in lines:
        own = line.startswith(_OWN_PREFIX)
        wanted = not own or line.startswith(_META_PREFIX)
        if not prompt_found and (not own or _USER_MARK in line):
            wanted = True
        entry = _parse(line) if wanted else None
        if entry is None:
            continue
        if entry.kind == "message" and first_prompt_text(entry.payload) is not None:
            prompt_found = True
            picked.append(entry)
        elif entry.kind == "meta":
            picked.append(entry)
    ends = [e for e in (_parse(lines[0]), _parse(lines[-1])) if e is not None] if lines else []
    count = len(lines) - (1 if lines and _parse(lines[-1]) is None else 0)
    info = summarise_entries(path.stem, path.parent.name, [*ends[:1], *picked, *ends[1:]])
    return dataclasses.replace(info, entry_count=count)
