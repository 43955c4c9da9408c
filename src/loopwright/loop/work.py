"""Work the loop runs as its own task: a model call, a batch of tools, a compaction.

Own tasks so that ``interrupt()`` can cancel them without cancelling the consumer; what
they produce meanwhile — deltas, retry notices, subagent messages — reaches the stream
through an outbox. How the task ended comes back as a value (:class:`Ended`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from loopwright.messages import Message
from loopwright.session.session import Session

Outbox = asyncio.Queue[Message | None]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Ended(Generic[T]):
    """How work run as a task ended: its value, or cancelled (interrupt), or a failure."""

    value: T | None = None
    cancelled: bool = False
    failure: BaseException | None = None


class Running(Generic[T]):
    """Work started as its own task, as an ``async with`` block: read what it puts in the
    outbox with :meth:`next` (None once it has ended); on leaving the block the task is
    cancelled if it is still running, and :meth:`ended` says how it ended.

    A context manager rather than an async generator: the loop starts two of these per
    turn, and each generator layer costs every message a hop.
    """

    def __init__(self, session: Session, start: Callable[[Outbox], Coroutine[Any, Any, T]]):
        self._session = session
        self._start = start
        self._outbox: Outbox = asyncio.Queue()  # one per task: no stale end marker can leak
        self._task: asyncio.Task[T] | None = None

    async def __aenter__(self) -> Running[T]:
        task = asyncio.create_task(self._start(self._outbox))
        task.add_done_callback(lambda _: self._outbox.put_nowait(None))
        self._task = self._session.current_work = task
        return self

    async def next(self) -> Message | None:
        return await self._outbox.get()

    async def __aexit__(self, *exc_info: object) -> None:
        self._session.current_work = None
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def ended(self) -> Ended[T]:
        task = self._task
        assert task is not None and task.done(), "ended() is read after the block"
        if task.cancelled():
            return Ended(cancelled=True)
        failure = task.exception()
        return Ended(failure=failure) if failure is not None else Ended(task.result())


async def interruptible(session: Session, coroutine: Coroutine[Any, Any, T]) -> T | None:
    """Await work that ``interrupt()`` may cancel; None when it was interrupted.

    A cancellation of the consumer itself still propagates.
    """
    task = asyncio.ensure_future(coroutine)
    session.current_work = task
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if (
            task.cancelled()
            and session.interrupted
            and not (current is not None and current.cancelling())
        ):
            return None
        raise
    finally:
        session.current_work = None
