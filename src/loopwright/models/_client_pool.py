"""HTTP clients (ours and the SDKs') shared by the providers that model strings make, per
process and event loop.

Model strings resolve to providers that draw their clients from here, so a thousand
sessions on ``anthropic:…`` do not build a thousand clients (each with its own pool and
TLS context). Nor do they all share one: the SDKs' connection pool
(httpcore) walks every connection it holds, probing idle ones with a syscall, each time a
request starts or a response ends, and closes idle connections above 100 after each wave
(to reopen them on the next). With a thousand sessions on one client that is a third of
a run's CPU time: 1,000 sessions of four requests through ``anthropic:`` against the fake
server took 24-33 s of client CPU on one client, 16-18 s on clients of 64 sessions
(benchmarks/bench_fleet.py).

So each key (provider, base URL, credentials, options) has clients of at most
``$LOOPWRIGHT_SESSIONS_PER_CLIENT`` users (default 64) each: a session takes a share of the
first client with room, and a client is closed when its last user releases it. With one
request in flight per session, a client then never holds more connections than its pool
keeps alive, and no request waits for a connection. A loop that ends takes its clients
with it when it is garbage-collected.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from loopwright.errors import ConfigurationError

SESSIONS_PER_CLIENT_ENV = "LOOPWRIGHT_SESSIONS_PER_CLIENT"
DEFAULT_SESSIONS_PER_CLIENT = 64


def sessions_per_client(env: dict[str, str] | None = None) -> int:
    """How many sessions share one SDK client: ``$LOOPWRIGHT_SESSIONS_PER_CLIENT`` or 64."""
    raw = (os.environ if env is None else env).get(SESSIONS_PER_CLIENT_ENV, "").strip()
    if not raw:
        return DEFAULT_SESSIONS_PER_CLIENT
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigurationError(
            f"{SESSIONS_PER_CLIENT_ENV}={raw!r} is not a positive whole number; "
            f"set it to how many sessions may share one SDK client (default "
            f"{DEFAULT_SESSIONS_PER_CLIENT}), or unset it"
        )
    return value


class _Share:
    """One SDK client and how many sessions hold it."""

    __slots__ = ("client", "users")

    def __init__(self, client: Any) -> None:
        self.client = client
        self.users = 0


class SharedClient:
    """The clients made by one factory: per event loop, each shared by at most
    ``per_client`` sessions, counted by their users."""

    def __init__(self, factory: Callable[[], Any], per_client: int | None = None) -> None:
        self._factory = factory
        self._per_client = per_client if per_client is not None else sessions_per_client()
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[_Share]] = (
            weakref.WeakKeyDictionary()
        )

    def acquire(self, loop: asyncio.AbstractEventLoop) -> Any:
        shares = self._per_loop.setdefault(loop, [])
        share = next((s for s in shares if s.users < self._per_client), None)
        if share is None:
            share = _Share(self._factory())
            shares.append(share)
        share.users += 1
        return share.client

    async def release(self, loop: asyncio.AbstractEventLoop, client: Any) -> None:
        shares = self._per_loop.get(loop, [])
        share = next((s for s in shares if s.client is client), None)
        if share is None:
            return
        share.users -= 1
        if share.users <= 0:
            shares.remove(share)
            if not shares:
                del self._per_loop[loop]
            await share.client.close()

    def clients(self, loop: asyncio.AbstractEventLoop) -> int:
        """How many clients are open on ``loop`` (for tests and status)."""
        return len(self._per_loop.get(loop, []))


_POOL: dict[Hashable, SharedClient] = {}


def shared_client(key: Hashable, factory: Callable[[], Any]) -> SharedClient:
    """The process's SharedClient for ``key`` (provider, base URL, credentials, options)."""
    found = _POOL.get(key)
    if found is None:
        found = _POOL[key] = SharedClient(factory)
    return found


class PooledClients:
    """A provider's handle on a SharedClient; the same ``get``/``aclose`` as ClientPerLoop."""

    def __init__(self, shared: SharedClient) -> None:
        self._shared = shared
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None

    def get(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # A previous loop's share is dropped with that loop (it cannot be awaited here).
            self._client = self._shared.acquire(loop)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        loop, client = self._loop, self._client
        self._loop, self._client = None, None
        if loop is not None and loop is asyncio.get_running_loop():
            await self._shared.release(loop, client)
