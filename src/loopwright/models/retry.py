"""Retries with backoff, Retry-After and an overload fallback, as a Model wrapping a Model.

The SDK clients are built with ``max_retries=0``: retrying here covers what they cannot —
errors that arrive mid-stream as SSE ``error`` events or cut connections — and makes
every retry visible as a ``RetryNotice`` event (the loop's ``api_retry`` message).

A retry restarts the whole request. Deltas streamed before a failure belong to the
abandoned attempt: consumers that show partial output should drop it when a RetryNotice
arrives. The final ModelResponse only ever comes from one complete attempt, and once it
has been yielded nothing is retried.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from loopwright.errors import ModelError
from loopwright.models.base import (
    MinimalModel,
    Model,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    ModelWrapper,
    RetryNotice,
    adopt_model,
)

Sleep = Callable[[float], Awaitable[Any]]

DEFAULT_MAX_RETRIES = 4
# Overloaded errors in a row (within one call) before switching to the fallback model.
OVERLOADS_BEFORE_FALLBACK = 2


class RetryingModel(ModelWrapper):
    """``inner`` with retries of retryable ModelErrors and an optional overload fallback.

    ``delay = min(max_delay, base_delay * 2**(attempt-1))`` scaled by a random factor in
    [0.5, 1] (jitter spreads out clients that failed together); a server's Retry-After
    replaces it, capped at ``max_retry_after``. After ``OVERLOADS_BEFORE_FALLBACK``
    consecutive overloaded errors the ``fallback`` model takes over — for the rest of this
    wrapper's life, since the primary just said it has no capacity.
    """

    def __init__(
        self,
        inner: MinimalModel,
        *,
        max_retries: int = DEFAULT_MAX_RETRIES,
        base_delay: float = 0.5,
        max_delay: float = 32.0,
        max_retry_after: float = 60.0,
        fallback: MinimalModel | None = None,
        sleep: Sleep = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.inner = adopt_model(inner)
        self.fallback = adopt_model(fallback) if fallback is not None else None
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._jitter = jitter
        self.using_fallback = False

    @property
    def active(self) -> Model:
        """The model answering now: the fallback once overloads switched to it."""
        if self.using_fallback and self.fallback is not None:
            return self.fallback
        return self.inner

    @property
    def wrapped(self) -> Model:
        return self.active

    async def aclose(self) -> None:
        """Release the connections of the wrapped models loopwright made from model
        strings. A Model object the user built is the user's to close (it may serve other
        sessions)."""
        for model in (self.inner, self.fallback):
            if model is not None and model.created_by_loopwright:
                await model.aclose()

    def delay_for(self, attempt: int, error: ModelError) -> float:
        if error.retry_after is not None:
            return min(error.retry_after, self.max_retry_after)
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return backoff * (0.5 + 0.5 * self._jitter())

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        attempt = 0
        overloads = 0
        while True:
            model = self.active
            try:
                async for event in model.stream(request):
                    yield event
                    if isinstance(event, ModelResponse):
                        return
                raise ModelError(
                    f"{model.name} ended its stream without a final response", kind="stream"
                )
            except ModelError as error:
                if not error.retryable or attempt >= self.max_retries:
                    raise
                attempt += 1
                overloads = overloads + 1 if error.kind == "overloaded" else 0
                note = ""
                if (
                    overloads >= OVERLOADS_BEFORE_FALLBACK
                    and self.fallback is not None
                    and not self.using_fallback
                ):
                    self.using_fallback = True
                    overloads = 0
                    note = f"; switching to fallback model {self.fallback.name}"
                delay = self.delay_for(attempt, error)
                yield RetryNotice(
                    attempt=attempt,
                    max_retries=self.max_retries,
                    delay_seconds=delay,
                    error=f"{error} [{error.kind}]{note}",
                    status_code=error.status_code,
                )
                await self._sleep(delay)
