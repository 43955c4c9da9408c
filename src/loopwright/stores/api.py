"""Public session helpers: pick a store, list, read, rename, tag, fork and delete sessions.

Every function takes an optional ``store``; without one it uses the JSONL store under
``$LOOPWRIGHT_HOME`` for ``cwd`` (default: the current directory).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from loopwright.errors import ConfigurationError
from loopwright.messages import ConversationMessage
from loopwright.stores.base import (
    MinimalStore,
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
    adopt_store,
    project_key,
    store_name,
)
from loopwright.stores.entries import meta_entry
from loopwright.stores.jsonl import JSONLStore
from loopwright.stores.recorder import fork_session as _fork_session

if TYPE_CHECKING:
    from loopwright.stores.approvals import PendingCall

StoreSpec = MinimalStore | str | None


def open_store(
    spec: StoreSpec = None, *, cwd: str | os.PathLike[str] | None = None
) -> SessionStore:
    """A store from an Options value.

    ``None`` or ``"jsonl"`` → :class:`JSONLStore` under ``$LOOPWRIGHT_HOME``;
    ``"jsonl:<dir>"`` → JSONL under that home; ``"sqlite:<path>"`` (or a ``.db`` /
    ``.sqlite`` path) → :class:`SQLiteStore`; ``"postgresql://…"`` → :class:`PostgresStore`;
    a store object is returned as it is (adopted when it lacks the optional members).
    """
    if spec is not None and not isinstance(spec, str):
        return adopt_store(spec)
    if spec is None or spec == "jsonl":
        return JSONLStore(cwd=cwd)
    if spec.startswith("jsonl:"):
        return JSONLStore(spec[len("jsonl:") :], cwd=cwd)
    if spec.startswith(("postgresql://", "postgres://")):
        from loopwright.stores.postgres import PostgresStore

        return PostgresStore(spec, cwd=cwd)
    if spec.startswith("sqlite:") or spec.endswith((".db", ".sqlite", ".sqlite3")):
        from loopwright.stores.sqlite import SQLiteStore

        path = spec.removeprefix("sqlite:")
        path = path[2:] if path.startswith("//") else path  # sqlite:///abs/path → /abs/path
        return SQLiteStore(path, cwd=cwd)
    raise ConfigurationError(
        f"session_store={spec!r} is not a store: use 'jsonl', 'jsonl:<home dir>', "
        "'sqlite:<path>', 'postgresql://…', or a SessionStore object"
    )


def _store(store: MinimalStore | None, cwd: str | os.PathLike[str] | None) -> MinimalStore:
    return store if store is not None else JSONLStore(cwd=cwd)


async def list_sessions(
    cwd: str | os.PathLike[str] | None = None,
    *,
    store: MinimalStore | None = None,
    all_projects: bool = False,
) -> list[SessionInfo]:
    """Sessions of ``cwd``'s project (or of every project), newest first."""
    project = None if all_projects else project_key(cwd if cwd is not None else os.getcwd())
    return await _store(store, cwd).list(project)


async def get_session_messages(
    session_id: str,
    *,
    store: MinimalStore | None = None,
    cwd: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[ConversationMessage]:
    """The conversation a resume would continue (after compaction: the compacted one)."""
    from loopwright.stores.transcript import restore  # start-up: a run never reads one back

    chosen = _store(store, cwd)
    entries = await chosen.load(session_id)
    if not entries:
        raise SessionNotFoundError(session_id, type(chosen).__name__)
    messages = restore(entries).messages[offset:]
    return messages[:limit] if limit is not None else messages


async def get_pending_approvals(
    session_id: str,
    *,
    store: StoreSpec = None,
    cwd: str | os.PathLike[str] | None = None,
) -> list[PendingCall]:
    """The calls of ``session_id`` that wait for approval (empty when none wait).

    ``store`` is a store object or an Options.session_store string ("sqlite:…" …).
    """
    from loopwright.stores.transcript import restore  # start-up: a run never reads one back

    chosen = open_store(store, cwd=cwd)
    try:
        entries = await chosen.load(session_id)
    finally:
        if store is None or isinstance(store, str):  # ours: a store the user passed is theirs
            await chosen.aclose()
    if not entries:
        raise SessionNotFoundError(session_id, store_name(chosen))
    pending = restore(entries).pending
    return list(pending.calls) if pending is not None else []


async def _set_meta(
    session_id: str, store: MinimalStore | None, cwd: str | os.PathLike[str] | None, **fields: Any
) -> None:
    chosen = _store(store, cwd)
    try:
        if not await chosen.load(session_id):
            raise SessionNotFoundError(session_id, type(chosen).__name__)
        await chosen.append(session_id, meta_entry(session_id, **fields))
        await chosen.sync()
    finally:
        if store is None:  # ours: release the file it opened for the append
            await chosen.aclose()


async def rename_session(
    session_id: str,
    title: str,
    *,
    store: MinimalStore | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> None:
    """Give a session a custom title (shown in listings instead of the first prompt)."""
    await _set_meta(session_id, store, cwd, title=title)


async def tag_session(
    session_id: str,
    tag: str | None,
    *,
    store: MinimalStore | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> None:
    """Tag a session (``None`` clears the tag)."""
    await _set_meta(session_id, store, cwd, tag=tag)


async def delete_session(
    session_id: str,
    *,
    store: MinimalStore | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> bool:
    """Remove a session; False if it did not exist."""
    return await _store(store, cwd).delete(session_id)


async def fork_session(
    session_id: str,
    *,
    store: MinimalStore | None = None,
    cwd: str | os.PathLike[str] | None = None,
    up_to: str | None = None,
) -> str:
    """Copy a session to a new id (optionally only up to message ``up_to``)."""
    chosen = _store(store, cwd)
    try:
        return await _fork_session(chosen, session_id, up_to=up_to)
    finally:
        if store is None:  # ours: release the file the copy was written through
            await chosen.aclose()
