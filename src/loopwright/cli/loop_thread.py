"""An asyncio event loop on a background thread, driven from the main thread.

The REPL keeps the main thread for the terminal (as ``python -m asyncio`` does): ``input()``
there gets readline editing, and Ctrl-C arrives as KeyboardInterrupt exactly where the
user is — at the prompt, or while a response streams — instead of cancelling whatever
coroutine the loop happened to be running.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="loopwright-event-loop", daemon=True
        )

    def __enter__(self) -> LoopThread:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run on the loop and wait; a Ctrl-C while waiting raises here, in the main thread."""
        return self.submit(coroutine).result()
