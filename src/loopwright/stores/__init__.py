"""Sessions: transcripts appended as they happen, and resume / continue / fork.

Stores: :class:`JSONLStore` (default), :class:`SQLiteStore`, ``PostgresStore`` (import from
``loopwright.stores.postgres``; needs psycopg). Any object with the
:class:`SessionStore` methods works; check it with ``loopwright.testing.store_conformance``.
"""

from typing import TYPE_CHECKING, Any

from loopwright.stores.api import (
    delete_session,
    fork_session,
    get_pending_approvals,
    get_session_messages,
    list_sessions,
    open_store,
    rename_session,
    tag_session,
)
from loopwright.stores.approvals import PendingBatch, PendingCall
from loopwright.stores.base import (
    MinimalStore,
    SessionBusyError,
    SessionError,
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
    StoreBase,
    TranscriptCorruptError,
    adopt_store,
    loopwright_home,
    project_key,
)
from loopwright.stores.entries import Entry, message_entry, meta_entry
from loopwright.stores.follow import attach_session, follow_session
from loopwright.stores.jsonl import JSONLStore
from loopwright.stores.recorder import (
    OpenedSession,
    SessionRecorder,
    latest_session,
    resume_session,
    start_transcript,
)
from loopwright.stores.repair import check_pairing, repair_pairing
from loopwright.stores.transcript import RestoredSession, StateSnapshot, restore

if TYPE_CHECKING:
    from loopwright.stores.sqlite import SQLiteStore


def __getattr__(name: str) -> Any:
    # sqlite3 loads only for sessions that use the SQLite store: a faster start-up.
    if name == "SQLiteStore":
        from loopwright.stores.sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module 'loopwright.stores' has no attribute {name!r}")


__all__ = [
    "Entry",
    "JSONLStore",
    "MinimalStore",
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
    "StoreBase",
    "TranscriptCorruptError",
    "adopt_store",
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
    "start_transcript",
    "tag_session",
]
