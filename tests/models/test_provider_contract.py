"""Behaviour every provider shares against its fake server, each both ways it can send:
our own HTTP path (the default) and through its SDK's client."""

from __future__ import annotations

import json

import pytest

from loopwright.cost import cost_of
from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import (
    ModelRequest,
    RetryNotice,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)
from loopwright.models.retry import RetryingModel
from loopwright.models.scripted import error, raw_tool_call, text, tool_call, tool_calls
from loopwright.testing._fake_http import (
    connection_reset,
    overloaded,
    rate_limited,
    server_error,
    slow_stream,
    stream_error,
    truncated_stream,
)

from .conftest import BOTH_TRANSPORTS, Provider, SleepRecorder, ask, collect


@pytest.fixture(params=BOTH_TRANSPORTS, ids=[p.id for p in BOTH_TRANSPORTS])
def provider(request: pytest.FixtureRequest) -> Provider:
    return request.param


async def test_multi_turn_tool_round_trip(provider: Provider) -> None:
    script = [tool_call("Read", path="/etc/hosts"), text("The file lists localhost.")]
    with provider.serve(script) as (server, model):
        first = ask("What is in /etc/hosts?")
        _, response = await collect(model, first)
        assert response.stop_reason == "tool_use"
        call = response.content[-1]
        assert isinstance(call, ToolUseBlock)
        assert (call.name, call.input) == ("Read", {"path": "/etc/hosts"})
        history = [
            *first.messages,
            AssistantMessage(response.content, model=response.model),
            UserMessage([ToolResultBlock(call.id, "127.0.0.1 localhost")]),
        ]
        _, final = await collect(model, ModelRequest("m", first.system, history, first.tools))
        assert final.content == [TextBlock("The file lists localhost.")]
        assert final.stop_reason == "end_turn"
        assert len(server.requests) == 2
        assert call.id in json.dumps(server.requests[1].body)
        assert "127.0.0.1 localhost" in json.dumps(server.requests[1].body)


async def test_parallel_tool_calls_in_one_response(provider: Provider) -> None:
    step = tool_calls([("Read", {"path": "/a"}), ("Glob", {"pattern": "*.py"})], text="Both.")
    with provider.serve([step]) as (_, model):
        events, response = await collect(model, ask())
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.name) for s in starts] == [(0, "Read"), (1, "Glob")]
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    assert [(c.name, c.input) for c in calls] == [
        ("Read", {"path": "/a"}),
        ("Glob", {"pattern": "*.py"}),
    ]
    assert calls[0].id == starts[0].id and calls[1].id == starts[1].id
    assert calls[0].id != calls[1].id


async def test_streamed_deltas_add_up_to_the_response(provider: Provider) -> None:
    step = tool_calls([("Read", {"path": "/x"})], text="Let me look at that file for you.")
    with provider.serve([step]) as (_, model):
        events, response = await collect(model, ask())
    text_deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(text_deltas) > 1
    assert "".join(text_deltas) == "Let me look at that file for you."
    pieces = [e.partial_json for e in events if isinstance(e, ToolInputDelta) and e.index == 0]
    assert len(pieces) == 2 and json.loads("".join(pieces)) == {"path": "/x"}
    assert all(e.raw is not None for e in events if isinstance(e, TextDelta))
    assert isinstance(response.content[0], TextBlock)


async def test_thinking_is_streamed_and_kept(provider: Provider) -> None:
    with provider.serve([text("42.", thinking="Six times seven.")]) as (_, model):
        events, response = await collect(model, ask())
    assert "".join(e.thinking for e in events if isinstance(e, ThinkingDelta)) == (
        "Six times seven."
    )
    thinking = response.content[0]
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "Six times seven."


async def test_invalid_tool_json_is_kept_raw(provider: Provider) -> None:
    with provider.serve([raw_tool_call("Read", '{"path": "/a"')]) as (server, model):
        _, response = await collect(model, ask())
        call = response.content[-1]
        assert isinstance(call, ToolUseBlock)
        assert call.input == {} and call.raw_input == '{"path": "/a"'
        history = [
            *ask().messages,
            AssistantMessage(response.content),
            UserMessage([ToolResultBlock(call.id, "invalid JSON", is_error=True)]),
        ]
        server.add(text("ok"))
        await collect(model, ModelRequest("m", "s", history))
    sent = json.dumps(server.requests[1].body)
    if provider.family != "anthropic":  # Anthropic takes input as an object: {} is sent
        assert json.dumps('{"path": "/a"') in sent


async def test_usage_and_cost(provider: Provider) -> None:
    usage = Usage(
        input_tokens=1200,
        output_tokens=300,
        cache_read_input_tokens=5000,
        cache_creation_input_tokens=800,
    )
    with provider.serve([text("hi").with_(usage=usage)]) as (_, model):
        _, response = await collect(model, ask())
    assert response.usage == usage
    cost = cost_of(response.model, response.usage)
    assert cost is not None and cost > 0


@pytest.mark.parametrize(
    "stop",
    ["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence"],
)
async def test_stop_reasons_are_normalised(provider: Provider, stop: str) -> None:
    step = tool_call("Read", path="/a") if stop == "tool_use" else text("partial answer")
    step = step.with_(stop_reason=stop)
    with provider.serve([step]) as (_, model):
        _, response = await collect(model, ask())
    expected = {
        # Chat Completions and Responses have no pause or stop-sequence reasons of their own.
        "pause_turn": "pause_turn" if provider.family == "anthropic" else "end_turn",
        "stop_sequence": "stop_sequence" if provider.family == "anthropic" else "end_turn",
    }.get(stop, stop)
    assert response.stop_reason == expected


FAULTS = {
    "rate_limit": rate_limited(retry_after=3),
    "overloaded": overloaded(),
    "server_500": server_error(500),
    "server_502": server_error(502),
    "conflict_409": server_error(409, "conflict"),
    "reset": connection_reset(),
    "sse_error": stream_error(after_events=4),
    "sse_api_error": stream_error(after_events=4, error_type="api_error"),
    "truncated": truncated_stream(after_events=4),
    "truncated_clean": truncated_stream(after_events=4, clean_end=True),
    "scripted_timeout": error("slow", kind="timeout", status_code=408),
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=list(FAULTS))
async def test_each_fault_is_retried_without_loss_or_duplication(
    provider: Provider, fault: object, sleeps: SleepRecorder
) -> None:
    final_step = text("The complete answer.")
    with provider.serve([fault, final_step]) as (server, model):  # type: ignore[list-item]
        retrying = RetryingModel(model, sleep=sleeps, jitter=lambda: 1.0)
        events, response = await collect(retrying, ask())
        server.assert_complete()
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert len(notices) == 1 and len(sleeps.delays) == 1
    assert response.content == [TextBlock("The complete answer.")]
    # Deltas after the notice are exactly the successful attempt's text.
    after = events[events.index(notices[0]) + 1 :]
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == "The complete answer."
    if fault is FAULTS["rate_limit"]:
        assert sleeps.delays == [3.0] and notices[0].status_code == 429


async def test_slow_stream_arrives_whole(provider: Provider) -> None:
    with provider.serve([slow_stream(text("slowly but surely"), delay=0.002)]) as (_, model):
        _, response = await collect(model, ask())
    assert response.content == [TextBlock("slowly but surely")]


async def test_read_timeout_on_a_stalled_stream_is_retried(
    provider: Provider, sleeps: SleepRecorder
) -> None:
    stalled = slow_stream(text("too late"), delay=0.3)
    with provider.serve([stalled, text("on time")], timeout=0.1) as (_, model):
        events, response = await collect(RetryingModel(model, sleep=sleeps), ask())
    notice = next(e for e in events if isinstance(e, RetryNotice))
    assert "[timeout]" in notice.error or "[stream]" in notice.error
    assert response.content == [TextBlock("on time")]


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        (
            error("prompt is too long: 1200000 tokens", kind="context_window_exceeded"),
            "context_window_exceeded",
        ),
        (error("bad key", kind="authentication", status_code=401), "authentication"),
        (error("malformed", kind="invalid_request", status_code=400), "invalid_request"),
    ],
    ids=["context_window", "authentication", "invalid_request"],
)
async def test_non_retryable_errors_surface_at_once(
    provider: Provider, sleeps: SleepRecorder, step: object, kind: str
) -> None:
    with provider.serve([step, text("never served")]) as (server, model):  # type: ignore[list-item]
        with pytest.raises(ModelError) as caught:
            await collect(RetryingModel(model, sleep=sleeps), ask())
        assert server.remaining == 1
    assert caught.value.kind == kind
    assert sleeps.delays == []


async def test_exhausted_retries_raise_the_last_error(
    provider: Provider, sleeps: SleepRecorder
) -> None:
    with provider.serve([server_error(500)] * 3) as (_, model), pytest.raises(ModelError) as caught:
        await collect(RetryingModel(model, max_retries=2, sleep=sleeps), ask())
    assert caught.value.kind == "server" and caught.value.status_code == 500
    assert len(sleeps.delays) == 2


async def test_overloads_switch_to_the_fallback_model(
    provider: Provider, sleeps: SleepRecorder
) -> None:
    with (
        provider.serve([overloaded(), overloaded()]) as (primary_server, primary),
        provider.serve([text("from the fallback")]) as (fallback_server, fallback),
    ):
        retrying = RetryingModel(primary, fallback=fallback, sleep=sleeps)
        events, response = await collect(retrying, ask())
        assert len(primary_server.requests) == 2 and len(fallback_server.requests) == 1
    assert response.content == [TextBlock("from the fallback")]
    assert "fallback" in [e for e in events if isinstance(e, RetryNotice)][-1].error
    assert retrying.using_fallback
