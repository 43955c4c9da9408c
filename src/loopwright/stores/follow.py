"""Following a session live from its transcript, from any process or machine that can read
the store: what it has said so far, then each new message, until its run ends.

Whoever writes the session (a fleet worker, a Client in another process) appends each
message to the store as it happens, so a follower only reads: it locks nothing and writes
nothing, and needs nothing but the store (not DBOS). Stores have no change notification
across processes, so the follower reads again every ``poll_seconds``.

When the run has ended: a ResultMessage that is, for now, the transcript's last message.
A session resumed before (an earlier run's result followed by more messages) is followed
through to the result of the run in progress, not stopped at the old one.

A worker that takes a durable session over writes its transcript again from the start
(replaying the same messages): the follower counts what it has yielded and skips that
replayed prefix, so nothing is shown twice.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

from loopwright.messages import Message, ResultMessage, message_from_dict
from loopwright.stores.api import StoreSpec, open_store
from loopwright.stores.base import SessionStore

DEFAULT_POLL_SECONDS = 0.5


async def follow_session(
    session_id: str,
    store: SessionStore,
    *,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    timeout_seconds: float | None = None,
) -> AsyncIterator[Message]:
    """Yield the session's messages (those already written, then new ones as they are
    appended) and stop once its run has ended, or when ``timeout_seconds`` pass."""
    yielded = 0
    loop = asyncio.get_running_loop()
    deadline = None if timeout_seconds is None else loop.time() + timeout_seconds
    while True:
        entries = await store.load(session_id)
        messages = [message_from_dict(e.payload) for e in entries if e.kind == "message"]
        for message in messages[yielded:]:
            yielded += 1
            yield message
        if messages and yielded >= len(messages) and isinstance(messages[-1], ResultMessage):
            return
        if deadline is not None and loop.time() >= deadline:
            return
        await asyncio.sleep(poll_seconds)


async def attach_session(
    session_id: str,
    session_store: StoreSpec = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    timeout_seconds: float | None = None,
) -> AsyncIterator[Message]:
    """:func:`follow_session` on the store an Options ``session_store`` value names (the
    default JSONL store when None); a store opened here is closed here."""
    store = open_store(session_store, cwd=cwd)
    try:
        async for message in follow_session(
            session_id, store, poll_seconds=poll_seconds, timeout_seconds=timeout_seconds
        ):
            yield message
    finally:
        if session_store is None or isinstance(session_store, str):
            await store.aclose()
