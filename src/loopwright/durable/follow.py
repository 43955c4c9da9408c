"""Following a session live from its transcript, from any machine that can read the store.

A durable session writes each message to the session store as it happens, so a client
elsewhere follows it by reading the store: every new message is yielded in order until
the session's ResultMessage. A worker that takes a session over writes its transcript
again from the start (replaying the same messages); the follower counts what it has
already yielded and skips that replayed prefix, so nothing is shown twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from loopwright.messages import Message, ResultMessage, message_from_dict
from loopwright.sessions.base import SessionStore

DEFAULT_POLL_SECONDS = 0.5


async def follow_session(
    session_id: str,
    store: SessionStore,
    *,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    timeout_seconds: float | None = None,
) -> AsyncIterator[Message]:
    """Yield the session's messages (those already written, then new ones as they are
    appended) and stop after its ResultMessage, or when ``timeout_seconds`` pass."""
    yielded = 0
    loop = asyncio.get_running_loop()
    deadline = None if timeout_seconds is None else loop.time() + timeout_seconds
    while True:
        entries = await store.load(session_id)
        messages = [message_from_dict(e.payload) for e in entries if e.kind == "message"]
        for message in messages[yielded:]:
            yielded += 1
            yield message
            if isinstance(message, ResultMessage):
                return
        if deadline is not None and loop.time() >= deadline:
            return
        await asyncio.sleep(poll_seconds)
