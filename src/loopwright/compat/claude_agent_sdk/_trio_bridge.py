"""Running the Claude layer under trio, as the reference SDK (built on anyio) allows.

loopwright's loop is written for asyncio. When the caller's event loop is trio, the layer
runs the native session on an asyncio event loop in a worker thread and awaits each step
from trio through ``anyio.to_thread``; under asyncio nothing changes. Callbacks (hooks,
``can_use_tool``, tools) then run on that asyncio loop: plain ``async def`` callbacks work,
callbacks that use trio primitives do not.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def under_trio() -> bool:
    try:
        import sniffio

        return sniffio.current_async_library() == "trio"
    except Exception:  # no async library detected: not trio
        return False


class AsyncioThread:
    """An asyncio event loop on its own thread, driven from another async library."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        import anyio.to_thread

        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return await anyio.to_thread.run_sync(future.result)

    async def iterate(self, stream: AsyncIterator[T]) -> AsyncIterator[T]:
        while True:
            try:
                item = await self.run(_next(stream))
            except StopAsyncIteration:
                return
            yield item

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()


async def _next(stream: AsyncIterator[T]) -> T:
    return await stream.__anext__()
