"""The ``SessionStore`` protocol, session listings, and where transcripts live.

The protocol is async because the loop is asyncio and remote stores (PostgreSQL) do I/O.
A store keeps entries per session in append order and hands them back unchanged
(deep-equal; key order and float formatting may differ).

Projects: every session belongs to a project, the working directory it ran in, encoded by
:func:`project_key`. A store is created with a default ``cwd``; a session whose first
appended entry is a ``meta`` entry with a ``cwd`` goes to that cwd's project instead, so one
store can serve sessions from many directories.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import re
import socket
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

from loopwright.errors import LoopwrightError
from loopwright.stores.entries import Entry

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_MAX_KEY = 200


class SessionError(LoopwrightError):
    """A session that cannot be found, read or written."""


class SessionNotFoundError(SessionError):
    def __init__(self, session_id: str, where: str) -> None:
        super().__init__(
            f"no session {session_id!r} in {where}; list sessions with "
            "`loopwright sessions list` (or loopwright.stores.list_sessions()) and pass "
            "one of those ids"
        )
        self.session_id = session_id


class SessionBusyError(SessionError):
    """The session is being written by another run; one writer per session."""

    def __init__(
        self, session_id: str, holder_pid: int | None = None, *, host: str | None = None
    ) -> None:
        here = host is None or host == socket.gethostname()
        if holder_pid == os.getpid() and here:
            who = "by another Client or query in this process"
        elif holder_pid is not None:
            who = f"by process {holder_pid}" + ("" if here else f" on {host}")
        else:
            who = "by another run"
        super().__init__(
            f"session {session_id!r} is already open for writing {who}; a session has one "
            "writer at a time. Wait for that run to finish (or close its Client) and resume "
            "again, or pass fork_session=True to continue in a new session that branches "
            "from this one"
        )
        self.session_id = session_id
        self.holder_pid = holder_pid
        self.holder_host = host


class TranscriptCorruptError(SessionError):
    """A transcript line in the middle of a file that is not a valid entry."""

    def __init__(self, path: str, line_number: int, reason: str) -> None:
        super().__init__(
            f"{path}, line {line_number}: {reason}. The lines after it are intact; fix or "
            f"delete line {line_number} to resume this session, or open the store with "
            "corrupt_lines='skip' to resume without it"
        )
        self.path = path
        self.line_number = line_number


def loopwright_home() -> Path:
    """``$LOOPWRIGHT_HOME``, default ``~/.loopwright``."""
    configured = os.environ.get("LOOPWRIGHT_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".loopwright"


def project_key(cwd: str | os.PathLike[str]) -> str:
    """A filesystem-safe name for a working directory: ``/home/me/proj`` → ``-home-me-proj``.

    Long paths are cut to 200 characters plus a hash, so distinct deep paths stay distinct.
    """
    absolute = os.path.abspath(os.fspath(cwd))
    key = _NOT_ALNUM.sub("-", absolute)
    if len(key) <= _MAX_KEY:
        return key
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:12]
    return f"{key[:_MAX_KEY]}-{digest}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of a session listing."""

    session_id: str
    project: str
    created_at: float
    updated_at: float
    entry_count: int
    cwd: str | None = None
    title: str | None = None  # set by rename_session
    tag: str | None = None
    first_prompt: str | None = None
    forked_from: str | None = None

    @property
    def summary(self) -> str:
        """What to show in a list: the custom title, else the first prompt."""
        if self.title:
            return self.title
        lines = (self.first_prompt or "").strip().splitlines()
        return lines[0][:120] if lines else ""


EntryList: TypeAlias = list[Entry]
InfoList: TypeAlias = list[SessionInfo]


@runtime_checkable
class MinimalStore(Protocol):
    """What a store must do: keep entries per session. Run
    ``loopwright.testing.store_conformance`` on yours. A store with only these methods is
    adopted (:func:`adopt_store`) and gets :class:`StoreBase`'s defaults for the rest."""

    async def append(self, session_id: str, entry: Entry) -> None:
        """Add one entry at the end of the session (creating the session)."""
        ...

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        """Add several entries in order (fork, bulk import)."""
        ...

    async def load(self, session_id: str) -> EntryList:
        """Every entry of the session in append order; ``[]`` for an unknown session."""
        ...

    async def list(self, project: str | None = None) -> InfoList:
        """Sessions of one project (a :func:`project_key`), or of all; newest first."""
        ...

    async def delete(self, session_id: str) -> bool:
        """Remove the session; False if there was none."""
        ...

    async def sync(self) -> None:
        """Make everything appended so far durable (the loop calls it at turn end)."""
        ...

    async def aclose(self) -> None: ...


class WriterLock(Protocol):
    """Held by the one writer of a session until released (see ``lock_session``)."""

    def release(self) -> None: ...


@runtime_checkable
class SessionStore(MinimalStore, Protocol):
    """Where transcripts are kept: every member the session and the helpers read.
    Inherit :class:`StoreBase` for the defaults of the optional ones."""

    def lock_session(self, session_id: str) -> WriterLock | Awaitable[WriterLock]:
        """Make the caller the one writer of ``session_id`` (or an awaitable of that, for
        stores that lock over the network); SessionBusyError when another run writes it.
        A :class:`NoWriterLock` says the store does not lock."""
        ...

    def path_of(self, session_id: str) -> Path | None:
        """The file the session is kept in, for stores that keep files; else None."""
        ...

    @property
    def location(self) -> str | None:
        """Where the store keeps its sessions, for messages; None when it cannot say."""
        ...


class NoWriterLock:
    """For stores that do not lock: their own concurrency rules apply."""

    def release(self) -> None:
        return None


class StoreBase:
    """Defaults for a SessionStore's optional members; the JSONL, SQLite and PostgreSQL
    stores inherit it, and so can a user's store."""

    __slots__ = ()

    def lock_session(self, session_id: str) -> WriterLock | Awaitable[WriterLock]:
        return NoWriterLock()

    def path_of(self, session_id: str) -> Path | None:
        return None

    @property
    def location(self) -> str | None:
        return None


def adopt_store(store: MinimalStore) -> SessionStore:
    """``store`` with every member of :class:`SessionStore`: itself when it has them all,
    else seen through :class:`ForeignStore`. The one place a store that is not ours is
    adapted."""
    if isinstance(store, StoreBase | SessionStore):
        return store
    return ForeignStore(store)


class ForeignStore(StoreBase):
    """A store object that does not inherit StoreBase (a user's duck-typed store): its
    methods are used, and the optional ones it has; the rest take StoreBase's defaults."""

    __slots__ = ("foreign",)

    def __init__(self, foreign: MinimalStore) -> None:
        self.foreign = foreign

    def _own(self, member: str) -> Any:
        # The object is foreign: an optional member may be missing, and only here is it
        # looked up by name.
        return getattr(self.foreign, member, None)

    async def append(self, session_id: str, entry: Entry) -> None:
        await self.foreign.append(session_id, entry)

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        await self.foreign.extend(session_id, entries)

    async def load(self, session_id: str) -> EntryList:
        return await self.foreign.load(session_id)

    async def list(self, project: str | None = None) -> InfoList:
        return await self.foreign.list(project)

    async def delete(self, session_id: str) -> bool:
        return await self.foreign.delete(session_id)

    async def sync(self) -> None:
        await self.foreign.sync()

    async def aclose(self) -> None:
        await self.foreign.aclose()

    def lock_session(self, session_id: str) -> WriterLock | Awaitable[WriterLock]:
        lock_session = self._own("lock_session")
        return NoWriterLock() if lock_session is None else lock_session(session_id)

    def path_of(self, session_id: str) -> Path | None:
        path_of = self._own("path_of")
        found = path_of(session_id) if path_of is not None else None
        return Path(found) if found is not None else None

    @property
    def location(self) -> str | None:
        # projects_dir / path: what stores offered before ``location`` was declared.
        location = self._own("location") or self._own("projects_dir") or self._own("path")
        return str(location) if location else None


def store_name(store: MinimalStore) -> str:
    """The store's class name for messages (the user's own class for an adopted store)."""
    return type(store.foreign if isinstance(store, ForeignStore) else store).__name__


async def lock_for_writing(store: SessionStore, session_id: str) -> WriterLock:
    """Make the caller the only writer of ``session_id`` until it releases the lock.

    The JSONL and SQLite stores use an OS file lock, PostgreSQL an advisory lock; both
    raise :class:`SessionBusyError` when another writer holds the session. A store that
    does not lock returns a :class:`NoWriterLock`.
    """
    taken = store.lock_session(session_id)
    lock: WriterLock = await taken if inspect.isawaitable(taken) else taken
    return lock


# --------------------------------------------------------------------------- listing


def first_prompt_text(payload: dict[str, Any]) -> str | None:
    """The text of a user message payload that is a prompt (not tool results)."""
    if payload.get("type") != "user" or payload.get("parent_tool_use_id"):
        return None
    content = payload.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                return None
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
        return "\n".join(texts) if texts else None
    return None


def build_info(
    session_id: str,
    project: str,
    times: tuple[float, float],
    entry_count: int,
    metas: Iterable[dict[str, Any]],
    first_prompt: str | None,
) -> SessionInfo:
    """Fold meta payloads (later ones win) into a listing row; shared by every store."""
    merged: dict[str, Any] = {}
    for meta in metas:
        merged.update(meta)
    forked = merged.get("forked_from")
    return SessionInfo(
        session_id=session_id,
        project=project,
        created_at=times[0],
        updated_at=times[1],
        entry_count=entry_count,
        cwd=merged.get("cwd"),
        title=merged.get("title"),
        tag=merged.get("tag"),
        first_prompt=first_prompt,
        forked_from=forked.get("session_id") if isinstance(forked, dict) else None,
    )


def summarise_entries(session_id: str, project: str, entries: Sequence[Entry]) -> SessionInfo:
    """A listing row computed from a full transcript (stores without a summary index)."""
    entries = [e for e in entries if not (e.kind == "meta" and "load_warning" in e.payload)]
    first: str | None = None
    for entry in entries:
        if entry.kind == "message":
            first = first_prompt_text(entry.payload)
            if first is not None:
                break
    times = (entries[0].timestamp, entries[-1].timestamp) if entries else (0.0, 0.0)
    metas = (e.payload for e in entries if e.kind == "meta")
    return build_info(session_id, project, times, len(entries), metas, first)


def newest_first(infos: Iterable[SessionInfo]) -> InfoList:
    return sorted(infos, key=lambda info: info.updated_at, reverse=True)


def project_of_first_entry(entry: Entry, default: str) -> str:
    """A session's project: the cwd of its first entry if that is a meta entry with one."""
    cwd = entry.payload.get("cwd") if entry.kind == "meta" else None
    return project_key(cwd) if isinstance(cwd, str) and cwd else default
