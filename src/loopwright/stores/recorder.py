"""Writing a session as it happens, and the resume / continue / fork entry points.

The loop owns one :class:`SessionRecorder` per session. It links every entry to the
previous one (``parent_uuid``), which is what lets :func:`restore` follow branches.

One writer per session: :func:`start_transcript` and :func:`resume_session` lock the session
they will write (``lock_for_writing``) before touching it, and the returned
:class:`OpenedSession` holds that lock until :meth:`OpenedSession.release`. A second
writer gets :class:`SessionBusyError` saying to wait or to fork; it is never silently
forked, and it never appends a branch of its own. A fork only reads the original and
writes (and locks) the new id.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from loopwright.messages import (
    ConversationMessage,
    Message,
    StreamEvent,
    SystemMessage,
    Usage,
    new_uuid,
)
from loopwright.stores.base import (
    MinimalStore,
    NoWriterLock,
    SessionBusyError,
    SessionNotFoundError,
    SessionStore,
    WriterLock,
    adopt_store,
    lock_for_writing,
    project_key,
    store_name,
)
from loopwright.stores.entries import Entry, message_entry, meta_entry

if TYPE_CHECKING:
    from loopwright.stores.transcript import RestoredSession, StateSnapshot

CompactTrigger = Literal["manual", "auto"]


class SessionRecorder:
    """Appends a session's messages, snapshots and compactions to a store, in order."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        *,
        parent_uuid: str | None = None,
        first: Entry | None = None,
    ):
        self.store = store
        self.session_id = session_id
        self._last = parent_uuid
        # A new session's opening entry that could not be written yet: it goes out with the
        # first append (or sync), so a store that is down fails inside the run, which ends
        # it with an error result, not while the session is opened, where it could only raise.
        self._first = first
        # Messages recorded during the current run: recording one again (the loop's
        # cancellation path re-records the history's last message) must not write a second
        # entry. A run starts with its init message (a run cancelled before its result
        # ends without one); a message object reused in a later run (the same UserMessage
        # sent twice) is recorded again, as it was sent again.
        self._this_run: set[str] = set()

    @property
    def last_uuid(self) -> str | None:
        return self._last

    async def _append(self, entry: Entry) -> None:
        if self._first is not None:
            await self.store.append(self.session_id, self._first)
            self._first = None
        await self.store.append(self.session_id, entry)

    async def _chain(self, kind: Literal["state", "compact"], payload: dict[str, Any]) -> None:
        entry = Entry(kind, self.session_id, payload, parent_uuid=self._last)
        await self._append(entry)
        self._last = entry.uuid

    async def message(self, message: Message) -> None:
        """Record a stream message as it is yielded (partial deltas are not kept)."""
        if isinstance(message, StreamEvent):
            return
        if isinstance(message, SystemMessage) and message.subtype == "init":
            self._this_run.clear()
        elif message.uuid in self._this_run:
            return
        await self._append(message_entry(self.session_id, message, self._last))
        self._last = message.uuid
        self._this_run.add(message.uuid)

    async def state(self, snapshot: StateSnapshot) -> None:
        """Record todos, read files and cumulative totals (at turn end, before sync)."""
        await self._chain("state", snapshot.to_payload())

    async def compaction(
        self,
        messages: Sequence[ConversationMessage],
        *,
        trigger: CompactTrigger,
        pre_tokens: int,
        post_tokens: int,
        summary: str,
        usage: Usage | None = None,
        model: str = "",
    ) -> None:
        """Record the compacted history that replaces everything before it on resume."""
        payload: dict[str, Any] = {
            "messages": [m.to_dict() for m in messages],
            "trigger": trigger,
            "pre_tokens": pre_tokens,
            "post_tokens": post_tokens,
            "summary": summary,
            "usage": usage.to_dict() if usage is not None else None,
            "model": model,
        }
        await self._chain("compact", payload)
        # They are on record now, inside the compaction entry: the summary message most of
        # all must not also be written as a message of its own (resume would show it twice).
        self._this_run.update(m.uuid for m in messages)

    async def meta(self, **fields: Any) -> None:
        """Record a session-wide fact (title, tag, cwd…); not part of the conversation."""
        await self._append(meta_entry(self.session_id, **fields))

    async def sync(self) -> None:
        if self._first is not None:  # a session opened and closed without a message
            await self.store.append(self.session_id, self._first)
            self._first = None
        await self.store.sync()


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A session ready to run: its id, what to restore, the recorder to write with, and
    the writer lock to release when the run is over."""

    session_id: str
    recorder: SessionRecorder
    restored: RestoredSession | None  # None for a new session
    forked_from: str | None = None
    lock: WriterLock | None = None

    def release(self) -> None:
        """Stop being the session's writer (idempotent); another run may resume it now."""
        if self.lock is not None:
            self.lock.release()


async def start_transcript(
    store: MinimalStore, session_id: str, cwd: str | os.PathLike[str], **meta: Any
) -> OpenedSession:
    """A new session, locked for writing; its first entry records the cwd (the project).

    Raises SessionBusyError if a run is already writing a session with this id. If the
    store cannot take the first entry now, it is retried with the session's first message
    (see SessionRecorder), so the run itself reports the failure.
    """
    store = adopt_store(store)
    try:
        lock = await lock_for_writing(store, session_id)
    except SessionBusyError:
        raise
    except Exception:
        # A store that is down cannot lock either: the run reports why, since its first
        # append fails the same way (a new session has nobody else writing it yet).
        lock = NoWriterLock()
    first = meta_entry(session_id, cwd=os.path.abspath(os.fspath(cwd)), **meta)
    try:
        await store.append(session_id, first)
    except Exception:  # a database that is down, a full disk: reported by the run itself
        recorder = SessionRecorder(store, session_id, first=first)
        return OpenedSession(session_id, recorder, None, lock=lock)
    except BaseException:
        lock.release()
        raise
    return OpenedSession(session_id, SessionRecorder(store, session_id), None, lock=lock)


async def resume_session(
    store: MinimalStore,
    session_id: str,
    *,
    resume_at: str | None = None,
    fork: bool = False,
    new_session_id: str | None = None,
) -> OpenedSession:
    """Load ``session_id`` (optionally up to ``resume_at``, optionally as a fork) to continue.

    The session written from now on (the original, or the fork) is locked for writing
    first: if another run is writing it, SessionBusyError says to wait or to fork. A fork
    only reads the original, so forking a session that is being written works.
    Orphaned tool calls are closed with "interrupted" results, which are appended to the
    transcript here, so the history on disk is valid from now on.
    """
    store = adopt_store(store)
    if fork:
        entries = await store.load(session_id)
        if not entries:
            raise SessionNotFoundError(session_id, _where(store))
        new_id = await fork_entries(store, session_id, entries, resume_at, new_session_id)
        # The fork ends where the branch point was.
        return await _continue(store, new_id, None, forked_from=session_id)
    return await _continue(store, session_id, resume_at, forked_from=None)


async def _continue(
    store: SessionStore, session_id: str, resume_at: str | None, *, forked_from: str | None
) -> OpenedSession:
    from loopwright.stores.transcript import restore  # start-up: only a resume reads one

    lock = await lock_for_writing(store, session_id)
    try:
        entries = await store.load(session_id)  # read under the lock: nobody appends now
        if not entries:
            raise SessionNotFoundError(session_id, _where(store))
        restored = restore(entries, resume_at=resume_at, session_id=session_id)
        recorder = SessionRecorder(store, session_id, parent_uuid=restored.last_uuid)
        for repair in restored.repairs:
            await recorder.message(repair)
    except BaseException:
        lock.release()
        raise
    return OpenedSession(session_id, recorder, restored, forked_from, lock=lock)


async def fork_session(
    store: MinimalStore,
    session_id: str,
    *,
    up_to: str | None = None,
    new_session_id: str | None = None,
) -> str:
    """Copy a session (or its history up to message ``up_to``) to a new id; returns the id.

    The original is only read. Message uuids are kept, so ``up_to``/``resume_at`` uuids
    from the original work on the fork too.
    """
    store = adopt_store(store)
    entries = await store.load(session_id)
    if not entries:
        raise SessionNotFoundError(session_id, _where(store))
    return await fork_entries(store, session_id, entries, up_to, new_session_id)


async def fork_entries(
    store: SessionStore,
    session_id: str,
    entries: Sequence[Entry],
    up_to: str | None,
    new_session_id: str | None,
) -> str:
    from loopwright.stores.transcript import chain  # start-up: only a fork reads one

    new_id = new_session_id or new_uuid()
    # The entries themselves, not their uuids: a uuid can occur again later (a message sent
    # twice), and copying that later entry would carry the fork past ``up_to``.
    keep = {id(e) for e in chain(entries, up_to)} if up_to is not None else None
    copied: list[Entry] = []
    for entry in entries:
        if entry.kind == "meta" and "load_warning" in entry.payload:
            continue
        if keep is not None and entry.kind != "meta" and id(entry) not in keep:
            continue
        copied.append(_rehome(entry, new_id))
    copied.append(meta_entry(new_id, forked_from={"session_id": session_id, "at": up_to}))
    await store.extend(new_id, copied)
    await store.sync()
    return new_id


def _rehome(entry: Entry, session_id: str) -> Entry:
    moved = entry.with_session(session_id)
    if entry.kind == "message" and "session_id" in entry.payload:
        payload = {**entry.payload, "session_id": session_id}
        return Entry(
            moved.kind, session_id, payload, moved.uuid, moved.parent_uuid, moved.timestamp
        )
    return moved


async def latest_session(store: SessionStore, cwd: str | os.PathLike[str]) -> str | None:
    """The most recently updated session in ``cwd`` (for ``continue_conversation``)."""
    infos = await store.list(project_key(cwd))
    return infos[0].session_id if infos else None


def _where(store: SessionStore) -> str:
    location = store.location
    return f"{store_name(store)} at {location}" if location else store_name(store)
