"""Sessions: transcripts appended as they happen, and resume / continue / fork.

Stores: :class:`JSONLStore` (default), :class:`SQLiteStore`, ``PostgresStore`` (import from
``loopwright.stores.postgres``; needs psycopg). Any object with the
:class:`SessionStore` methods works; check it with ``loopwright.testing.store_conformance``.
"""

from typing import TYPE_CHECKING

from loopwright.lazy_exports import lazy_exports

# Each name loads its module when first used: a run that only records a transcript does
# not import the listing, following, repair or SQLite code (a faster start-up).
_EXPORTS: dict[str, str] = {
    "Entry": "loopwright.stores.entries",
    "JSONLStore": "loopwright.stores.jsonl",
    "adopt_store": "loopwright.stores.base",
    "StoreBase": "loopwright.stores.base",
    "MinimalStore": "loopwright.stores.base",
    "OpenedSession": "loopwright.stores.recorder",
    "PendingBatch": "loopwright.stores.approvals",
    "PendingCall": "loopwright.stores.approvals",
    "RestoredSession": "loopwright.stores.transcript",
    "SQLiteStore": "loopwright.stores.sqlite",
    "SessionBusyError": "loopwright.stores.base",
    "SessionError": "loopwright.stores.base",
    "SessionInfo": "loopwright.stores.base",
    "SessionNotFoundError": "loopwright.stores.base",
    "SessionRecorder": "loopwright.stores.recorder",
    "SessionStore": "loopwright.stores.base",
    "StateSnapshot": "loopwright.stores.transcript",
    "TranscriptCorruptError": "loopwright.stores.base",
    "attach_session": "loopwright.stores.follow",
    "check_pairing": "loopwright.stores.repair",
    "delete_session": "loopwright.stores.api",
    "follow_session": "loopwright.stores.follow",
    "fork_session": "loopwright.stores.api",
    "get_pending_approvals": "loopwright.stores.api",
    "get_session_messages": "loopwright.stores.api",
    "latest_session": "loopwright.stores.recorder",
    "list_sessions": "loopwright.stores.api",
    "loopwright_home": "loopwright.stores.base",
    "message_entry": "loopwright.stores.entries",
    "meta_entry": "loopwright.stores.entries",
    "open_store": "loopwright.stores.api",
    "project_key": "loopwright.stores.base",
    "rename_session": "loopwright.stores.api",
    "repair_pairing": "loopwright.stores.repair",
    "restore": "loopwright.stores.transcript",
    "resume_session": "loopwright.stores.recorder",
    "start_transcript": "loopwright.stores.recorder",
    "tag_session": "loopwright.stores.api",
}

if TYPE_CHECKING:
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
    from loopwright.stores.sqlite import SQLiteStore
    from loopwright.stores.transcript import RestoredSession, StateSnapshot, restore


__getattr__ = lazy_exports("loopwright.stores", _EXPORTS)


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
