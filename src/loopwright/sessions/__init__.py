"""Sessions: transcripts appended as they happen, and resume / continue / fork.

Stores: :class:`JSONLStore` (default), :class:`SQLiteStore`, ``PostgresStore`` (import from
``loopwright.sessions.postgres``; needs psycopg). Any object with the
:class:`SessionStore` methods works; check it with ``loopwright.testing.store_conformance``.
"""

from typing import TYPE_CHECKING, Any

from loopwright.sessions.api import (
    delete_session,
    fork_session,
    get_pending_approvals,
    get_session_messages,
    list_sessions,
    open_store,
    rename_session,
    tag_session,
)
from loopwright.sessions.approvals import PendingBatch, PendingCall
from loopwright.sessions.base import (
    SessionBusyError,
    SessionError,
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
    TranscriptCorruptError,
    loopwright_home,
    project_key,
)
from loopwright.sessions.entries import Entry, message_entry, meta_entry
from loopwright.sessions.follow import attach_session, follow_session
from loopwright.sessions.jsonl import JSONLStore
from loopwright.sessions.recorder import (
    OpenedSession,
    SessionRecorder,
    latest_session,
    resume_session,
    start_session,
)
from loopwright.sessions.repair import check_pairing, repair_pairing
from loopwright.sessions.transcript import RestoredSession, StateSnapshot, restore

if TYPE_CHECKING:
    from loopwright.sessions.sqlite import SQLiteStore


def __getattr__(name: str) -> Any:
    # sqlite3 loads only for sessions that use the SQLite store: a faster start-up.
    if name == "SQLiteStore":
        from loopwright.sessions.sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module 'loopwright.sessions' has no attribute {name!r}")


__all__ = [
    "Entry",
    "JSONLStore",
    "OpenedSession",
    "PendingBatch",
    "PendingCall",
    "RestoredSession",
    "SQLiteStore",
    "SessionBusyError",
    "SessionError",
    "SessionInfo",
    "SessionNotFoundError",
    "SessionRecorder",
    "SessionStore",
    "StateSnapshot",
    "TranscriptCorruptError",
    "attach_session",
    "check_pairing",
    "delete_session",
    "follow_session",
    "fork_session",
    "get_pending_approvals",
    "get_session_messages",
    "latest_session",
    "list_sessions",
    "loopwright_home",
    "message_entry",
    "meta_entry",
    "open_store",
    "project_key",
    "rename_session",
    "repair_pairing",
    "restore",
    "resume_session",
    "start_session",
    "tag_session",
]
