"""Work the loop runs as its own task: a model call, a batch of tools, a compaction.

Own tasks so that ``interrupt()`` can cancel them without cancelling the consumer; what
they produce meanwhile — deltas, retry notices, subagent messages — reaches the stream
through an outbox. How the task ended comes back as a value (:class:`Ended`), last.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
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


async def drain(
    session: Session, start: Callable[[Outbox], Coroutine[Any, Any, T]]
) -> AsyncIterator[Message | Ended[T]]:
    """Run the work as a task; yield what it puts in the outbox until it ends, then how
    it ended."""
    outbox: Outbox = asyncio.Queue()  # one per task: no stale end marker can leak
    task = asyncio.create_task(start(outbox))
    session.current_work = task
    task.add_done_callback(lambda _: outbox.put_nowait(None))
    try:
        while (item := await outbox.get()) is not None:
            yield item
    finally:
        session.current_work = None
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    if task.cancelled():
        yield Ended(cancelled=True)
    elif (failure := task.exception()) is not None:
        yield Ended(failure=failure)
    else:
        yield Ended(task.result())


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
