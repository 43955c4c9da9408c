"""A fake Anthropic Messages API on 127.0.0.1 for testing agents without a network.

    from loopwright.models.scripted import text, tool_call
    from loopwright.testing.fake_anthropic import FakeAnthropicServer, rate_limited

    with FakeAnthropicServer([rate_limited(retry_after=1), tool_call("Read", path="/x"),
                              text("done")]) as server:
        model = AnthropicModel("claude-sonnet-5-5", api_key="test", base_url=server.base_url)
        ...
        assert server.requests[1].body["messages"][-1]["content"][0]["type"] == "tool_result"

Each POST /v1/messages consumes the next script item: a Step (served as real SSE events,
or as one JSON message when the request does not stream) or a Fault. ``error(...)`` steps
become the HTTP failure they describe. POST /v1/messages/count_tokens answers an estimate
without consuming the script.
"""

from __future__ import annotations

import json
from typing import Any

from loopwright.models.scripted import ScriptedCall, Step, text
from loopwright.testing._fake_http import (
    Exchange,
    FakeServer,
    Fault,
    RecordedRequest,
    Recording,
    ScriptItem,
    SSEEvent,
    connection_reset,
    fault_from_error,
    halves,
    http_error,
    overloaded,
    rate_limited,
    server_error,
    slow_stream,
    stream_error,
    truncated_stream,
    word_chunks,
)

__all__ = [
    "FakeAnthropicServer",
    "Fault",
    "RecordedRequest",
    "Recording",
    "ScriptItem",
    "connection_reset",
    "http_error",
    "overloaded",
    "rate_limited",
    "server_error",
    "slow_stream",
    "stream_error",
    "truncated_stream",
]

_WIRE_STOP = {"context_window_exceeded": "model_context_window_exceeded"}
_PARTIAL = text("This answer is cut off part way through by an injected fault.")


class FakeAnthropicServer(FakeServer):
    """Speaks the Anthropic Messages API. ``base_url`` goes to ``AsyncAnthropic``."""

    overloaded_status = 529

    @property
    def base_url(self) -> str:
        return self.url

    def handle(self, exchange: Exchange) -> None:
        path = exchange.request.path
        if path.endswith("/v1/messages/count_tokens"):
            estimate = max(1, len(json.dumps(exchange.body)) // 4)
            exchange.send_json(200, {"input_tokens": estimate})
        elif path.endswith("/v1/messages"):
            self._messages(exchange)
        else:
            exchange.send_json(404, _error_body("not_found_error", f"no route for {path}"))

    def _messages(self, exchange: Exchange) -> None:
        item = self.next_item()
        number = self.served
        model = str(exchange.body.get("model", "claude-fake"))
        if item is None:
            message = (
                f"FakeAnthropicServer received request {number} but its script is exhausted; "
                "add a step for it"
            )
            exchange.send_json(400, _error_body("invalid_request_error", message))
            return
        if isinstance(item, Recording):
            exchange.replay(item)
            return
        if isinstance(item, Step) and item.error is not None:
            item = fault_from_error(item.error, overloaded_status=self.overloaded_status)
        if isinstance(item, Fault):
            self._fault(exchange, item, number, model)
        elif exchange.wants_stream:
            exchange.send_sse(stream_events(item, number, model))
        else:
            exchange.send_json(200, message_json(item, number, model))

    def _fault(self, exchange: Exchange, fault: Fault, number: int, model: str) -> None:
        match fault.kind:
            case "status":
                headers: list[tuple[str, str]] = []
                if fault.retry_after is not None:
                    headers.append(("retry-after", f"{fault.retry_after:g}"))
                body = _error_body(fault.error_type, fault.message)
                exchange.send_json(fault.status, body, headers)
            case "reset":
                exchange.reset()
            case "stream_error":
                events = stream_events(fault.partial or _PARTIAL, number, model)
                error_event: SSEEvent = ("error", _error_body(fault.error_type, fault.message))
                exchange.send_sse(events, cut_after=fault.after_events, then=error_event)
            case "truncate":
                events = stream_events(fault.partial or _PARTIAL, number, model)
                exchange.send_sse(events, cut_after=fault.after_events, clean_end=fault.clean_end)
            case "slow":
                events = stream_events(fault.partial or _PARTIAL, number, model)
                exchange.send_sse(events, delay=fault.delay)


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _stop_reason(step: Step) -> str:
    stop = step.stop_reason or ("tool_use" if step.calls else "end_turn")
    return _WIRE_STOP.get(stop, stop)


def _call_id(call: ScriptedCall, number: int, index: int) -> str:
    return call.id or f"toolu_fake_{number}_{index}"


def _call_json(call: ScriptedCall) -> str:
    return call.raw_json if call.raw_json is not None else json.dumps(call.input)


def _signature(number: int) -> str:
    return f"fake-signature-{number}"


def _usage(step: Step, *, output: int) -> dict[str, Any]:
    return {
        "input_tokens": step.usage.input_tokens,
        "output_tokens": output,
        "cache_read_input_tokens": step.usage.cache_read_input_tokens,
        "cache_creation_input_tokens": step.usage.cache_creation_input_tokens,
    }


def stream_events(step: Step, number: int, model: str) -> list[SSEEvent]:
    """The SSE events of one streamed Messages API response for ``step``."""
    message: dict[str, Any] = {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(step, output=1),
    }
    events: list[SSEEvent] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("ping", {"type": "ping"}),
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if step.thinking:
        deltas = [{"type": "thinking_delta", "thinking": c} for c in word_chunks(step.thinking)]
        deltas.append({"type": "signature_delta", "signature": _signature(number)})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if step.text:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": c} for c in word_chunks(step.text)],
        )
    for position, call in enumerate(step.calls):
        block(
            {
                "type": "tool_use",
                "id": _call_id(call, number, position),
                "name": call.name,
                "input": {},
            },
            [{"type": "input_json_delta", "partial_json": p} for p in halves(_call_json(call))],
        )
    stop = _stop_reason(step)
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": stop,
                    "stop_sequence": "STOP" if stop == "stop_sequence" else None,
                },
                "usage": _usage(step, output=step.usage.output_tokens),
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def message_json(step: Step, number: int, model: str) -> dict[str, Any]:
    """The non-streaming Messages API response for ``step``."""
    content: list[dict[str, Any]] = []
    if step.thinking:
        content.append(
            {"type": "thinking", "thinking": step.thinking, "signature": _signature(number)}
        )
    if step.text:
        content.append({"type": "text", "text": step.text})
    for position, call in enumerate(step.calls):
        try:
            arguments: Any = json.loads(_call_json(call))
        except json.JSONDecodeError:
            arguments = {}
        content.append(
            {
                "type": "tool_use",
                "id": _call_id(call, number, position),
                "name": call.name,
                "input": arguments,
            }
        )
    stop = _stop_reason(step)
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": "STOP" if stop == "stop_sequence" else None,
        "usage": _usage(step, output=step.usage.output_tokens),
    }
