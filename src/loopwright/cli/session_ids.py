"""Session ids as users type them: whole, or any unique prefix of one (as git takes hashes)."""

from __future__ import annotations

import os

from loopwright.errors import ConfigurationError
from loopwright.stores import SessionStore, latest_session, list_sessions, open_store
from loopwright.stores.base import SessionInfo


def _matches(infos: list[SessionInfo], prefix: str) -> list[str]:
    exact = [info.session_id for info in infos if info.session_id == prefix]
    if exact:
        return exact
    return sorted({info.session_id for info in infos if info.session_id.startswith(prefix)})


async def resolve_session_id(store: SessionStore, typed: str, cwd: str | None) -> str:
    """The full id ``typed`` names: itself, or the one session of this directory (else of
    any directory) whose id starts with it. An id nothing matches is returned unchanged, so
    the store's own "no session" error (which says how to list them) still speaks."""
    if not typed:
        raise ConfigurationError("the session id is empty; see `loopwright sessions list`")
    if await store.load(typed):
        return typed
    here = await list_sessions(cwd, store=store)
    found = _matches(here, typed) or _matches(
        await list_sessions(cwd, store=store, all_projects=True), typed
    )
    if len(found) > 1:
        shown = ", ".join(found[:5]) + (" …" if len(found) > 5 else "")
        raise ConfigurationError(
            f"session id prefix {typed!r} matches {len(found)} sessions ({shown}); "
            "type more of the id"
        )
    return found[0] if found else typed


async def session_to_resume(
    store_spec: str | None, cwd: str | None, resume: str | None, continue_latest: bool
) -> str | None:
    """The full id for ``--resume ID-OR-PREFIX`` / ``--continue``; ``None`` for a new session.

    ``--continue`` with no earlier session here is an error, not a silent new session."""
    if resume is None and not continue_latest:
        return None
    directory = cwd or os.getcwd()
    store = open_store(store_spec, cwd=directory)
    try:
        if resume is not None:
            return await resolve_session_id(store, resume, directory)
        latest = await latest_session(store, directory)
    finally:
        await store.aclose()
    if latest is None:
        raise ConfigurationError(
            f"--continue: there is no earlier session in {directory} to continue; drop "
            "--continue to start a new one, or pick one with --resume ID "
            "(see `loopwright sessions list --all`)"
        )
    return latest
