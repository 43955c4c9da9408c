"""Following a durable session live: the session store's follower (see
:mod:`loopwright.stores.follow`), which needs no DBOS and so serves any session."""

from __future__ import annotations

from loopwright.stores.follow import DEFAULT_POLL_SECONDS, attach_session, follow_session

__all__ = ["DEFAULT_POLL_SECONDS", "attach_session", "follow_session"]
