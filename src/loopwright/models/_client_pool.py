"""One SDK client per process for each provider, base URL and key (per event loop).

Model strings resolve to providers that draw their client from here, so a thousand
sessions on ``anthropic:…`` share one connection pool instead of building a thousand SDK
clients (each with its own pool, TLS context and retry state). A client is closed when
the last session using it on its event loop closes; a loop that ends takes its clients
with it when it is garbage-collected.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Hashable
from typing import Any


class SharedClient:
    """The clients made by one factory, one per event loop, counted by their users."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[Any]] = (
            weakref.WeakKeyDictionary()
        )

    def acquire(self, loop: asyncio.AbstractEventLoop) -> Any:
        entry = self._per_loop.get(loop)
        if entry is None:
            entry = [self._factory(), 0]
            self._per_loop[loop] = entry
        entry[1] += 1
        return entry[0]

    async def release(self, loop: asyncio.AbstractEventLoop) -> None:
        entry = self._per_loop.get(loop)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self._per_loop[loop]
            await entry[0].close()


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
        loop, self._loop, self._client = self._loop, None, None
        if loop is not None and loop is asyncio.get_running_loop():
            await self._shared.release(loop)
