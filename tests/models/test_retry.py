"""RetryingModel policy, driven by scripted models (no HTTP)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from loopwright.errors import ModelError
from loopwright.messages import TextBlock, Usage, UserMessage
from loopwright.models.base import ModelEvent, ModelRequest, ModelResponse, RetryNotice
from loopwright.models.retry import RetryingModel
from loopwright.models.scripted import ScriptedModel, error, text

from .conftest import SleepRecorder, collect

REQUEST = ModelRequest("m", "", [UserMessage("hi")])


async def test_backoff_doubles_with_jitter_and_is_capped(sleeps: SleepRecorder) -> None:
    inner = ScriptedModel([error("boom", retry_after=None)] * 6 + [text("ok")])
    retrying = RetryingModel(
        inner, max_retries=6, base_delay=1.0, max_delay=8.0, sleep=sleeps, jitter=lambda: 0.0
    )
    await collect(retrying, REQUEST)
    assert sleeps.delays == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


async def test_retry_after_is_honoured_and_capped(sleeps: SleepRecorder) -> None:
    inner = ScriptedModel(
        [
            error("slow down", kind="rate_limit", status_code=429, retry_after=7),
            error("slow down", kind="rate_limit", status_code=429, retry_after=3600),
            text("ok"),
        ]
    )
    events, _ = await collect(RetryingModel(inner, sleep=sleeps), REQUEST)
    assert sleeps.delays == [7, 60.0]
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert [(n.attempt, n.max_retries, n.status_code) for n in notices] == [
        (1, 4, 429),
        (2, 4, 429),
    ]
    assert "[rate_limit]" in notices[0].error


async def test_default_is_four_retries(sleeps: SleepRecorder) -> None:
    inner = ScriptedModel([error("down")] * 5)
    with pytest.raises(ModelError):
        await collect(RetryingModel(inner, sleep=sleeps), REQUEST)
    assert len(sleeps.delays) == 4 and inner.remaining == 0


async def test_non_retryable_error_is_raised_at_once(sleeps: SleepRecorder) -> None:
    inner = ScriptedModel([error("too long", kind="context_window_exceeded"), text("never")])
    with pytest.raises(ModelError) as caught:
        await collect(RetryingModel(inner, sleep=sleeps), REQUEST)
    assert caught.value.kind == "context_window_exceeded" and sleeps.delays == []


async def test_one_overload_does_not_switch_but_two_do(sleeps: SleepRecorder) -> None:
    primary = ScriptedModel(
        [error("busy", kind="overloaded", status_code=529), text("primary ok")], name="primary"
    )
    fallback = ScriptedModel([text("fallback ok")], name="fallback")
    retrying = RetryingModel(primary, fallback=fallback, sleep=sleeps)
    _, response = await collect(retrying, REQUEST)
    assert response.content == [TextBlock("primary ok")] and retrying.name == "primary"

    primary.__init__([error("busy", kind="overloaded")] * 2, name="primary")  # type: ignore[misc]
    _, response = await collect(retrying, REQUEST)
    assert response.content == [TextBlock("fallback ok")]
    assert retrying.name == "fallback" and retrying.using_fallback


async def test_interleaved_errors_reset_the_overload_count(sleeps: SleepRecorder) -> None:
    primary = ScriptedModel(
        [
            error("busy", kind="overloaded"),
            error("boom", kind="server"),
            error("busy", kind="overloaded"),
            text("primary ok"),
        ]
    )
    fallback = ScriptedModel([text("never")])
    _, response = await collect(RetryingModel(primary, fallback=fallback, sleep=sleeps), REQUEST)
    assert response.content == [TextBlock("primary ok")]


class _AnswersThenFails:
    name = "answers-then-fails"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        yield ModelResponse([TextBlock("answer")], Usage(), "end_turn", self.name)
        raise ModelError("after the answer", kind="stream")


async def test_nothing_is_retried_after_the_final_response(sleeps: SleepRecorder) -> None:
    inner = _AnswersThenFails()
    events, _ = await collect(RetryingModel(inner, sleep=sleeps), REQUEST)
    assert len(events) == 1 and inner.calls == 1 and sleeps.delays == []


class _NoResponse:
    name = "no-response"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        return
        yield  # pragma: no cover


async def test_a_stream_without_a_response_is_a_stream_error(sleeps: SleepRecorder) -> None:
    with pytest.raises(ModelError) as caught:
        await collect(RetryingModel(_NoResponse(), max_retries=1, sleep=sleeps), REQUEST)
    assert caught.value.kind == "stream" and len(sleeps.delays) == 1
