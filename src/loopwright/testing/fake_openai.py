"""A fake OpenAI API on 127.0.0.1: Responses (/v1/responses) and Chat Completions
(/v1/chat/completions), for testing agents on OpenAI or any compatible server offline.

    with FakeOpenAIServer([tool_call("Read", path="/x"), text("done")]) as server:
        model = OpenAIResponsesModel("gpt-5.5", api_key="test", base_url=server.base_url)

Both endpoints consume one shared script of Steps and Faults (see ``fake_anthropic``);
POST /v1/responses/input_tokens answers an estimate without consuming it.
Thinking is served as an encrypted reasoning item (Responses) or as ``reasoning_content``
deltas, the convention of vLLM, Ollama, DeepSeek and OpenRouter (Chat Completions).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from loopwright.models.scripted import ScriptedCall, Step, text
from loopwright.models.wire import is_context_overflow
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
    "FakeOpenAIServer",
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

_PARTIAL = text("This answer is cut off part way through by an injected fault.")
_CODES = {
    "rate_limit_error": "rate_limit_exceeded",
    "overloaded_error": "server_is_overloaded",
    "api_error": "server_error",
    "timeout_error": "timeout",
    "authentication_error": "invalid_api_key",
}
_FINISH = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "context_window_exceeded": "length",
}


class FakeOpenAIServer(FakeServer):
    """Speaks the OpenAI Responses and Chat Completions APIs; ``base_url`` ends in /v1."""

    overloaded_status = 503

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def handle(self, exchange: Exchange) -> None:
        path = exchange.request.path
        if path.endswith("/responses/input_tokens"):
            estimate = max(1, len(json.dumps(exchange.body)) // 4)
            exchange.send_json(200, {"object": "response.input_tokens", "input_tokens": estimate})
            return
        if path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/chat/completions"):
            api = "chat"
        else:
            exchange.send_json(404, _error_body("not_found", f"no route for {path}"))
            return
        item = self.next_item()
        number = self.served
        model = str(exchange.body.get("model", "gpt-fake"))
        if item is None:
            message = (
                f"FakeOpenAIServer received request {number} but its script is exhausted; "
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
            self._fault(exchange, item, api, number, model)
        elif exchange.wants_stream:
            exchange.send_sse(_events(api, item, number, model, exchange.body))
        elif api == "responses":
            exchange.send_json(200, response_json(item, number, model, "completed"))
        else:
            exchange.send_json(200, chat_json(item, number, model))

    def _fault(self, exchange: Exchange, fault: Fault, api: str, number: int, model: str) -> None:
        body = exchange.body
        match fault.kind:
            case "status":
                headers: list[tuple[str, str]] = []
                if fault.retry_after is not None:
                    headers.append(("retry-after", f"{fault.retry_after:g}"))
                payload = _error_body(_code(fault), fault.message, fault.error_type)
                exchange.send_json(fault.status, payload, headers)
            case "reset":
                exchange.reset()
            case "stream_error":
                events = _events(api, fault.partial or _PARTIAL, number, model, body)
                error: SSEEvent
                if api == "responses":
                    error = (
                        "error",
                        {
                            "type": "error",
                            "code": _code(fault),
                            "message": fault.message,
                            "param": None,
                            "sequence_number": fault.after_events,
                        },
                    )
                else:
                    error = (None, _error_body(_code(fault), fault.message, fault.error_type))
                exchange.send_sse(events, cut_after=fault.after_events, then=error)
            case "truncate":
                events = _events(api, fault.partial or _PARTIAL, number, model, body)
                exchange.send_sse(events, cut_after=fault.after_events, clean_end=fault.clean_end)
            case "slow":
                events = _events(api, fault.partial or _PARTIAL, number, model, body)
                exchange.send_sse(events, delay=fault.delay)


def _code(fault: Fault) -> str:
    if is_context_overflow(fault.message):
        return "context_length_exceeded"
    return _CODES.get(fault.error_type, fault.error_type)


def _error_body(code: str, message: str, error_type: str = "invalid_request_error") -> Any:
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def _events(api: str, step: Step, number: int, model: str, body: dict[str, Any]) -> list[SSEEvent]:
    if api == "responses":
        return response_events(step, number, model)
    return chat_events(step, number, model, include_usage=_wants_usage(body))


def _wants_usage(body: dict[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and bool(options.get("include_usage"))


def _stop(step: Step) -> str:
    return step.stop_reason or ("tool_use" if step.calls else "end_turn")


def _call_id(call: ScriptedCall, number: int, index: int) -> str:
    return call.id or f"call_fake_{number}_{index}"


def _arguments(call: ScriptedCall) -> str:
    return call.raw_json if call.raw_json is not None else json.dumps(call.input)


# --------------------------------------------------------------------------- Responses


def _output_items(step: Step, number: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if step.thinking:
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_fake_{number}",
                "summary": [{"type": "summary_text", "text": step.thinking}],
                "encrypted_content": f"fake-encrypted-reasoning-{number}",
            }
        )
    if step.text:
        part: dict[str, Any] = (
            {"type": "refusal", "refusal": step.text}
            if _stop(step) == "refusal"
            else {"type": "output_text", "text": step.text, "annotations": [], "logprobs": []}
        )
        items.append(
            {
                "type": "message",
                "id": f"msg_fake_{number}",
                "role": "assistant",
                "status": "completed",
                "content": [part],
            }
        )
    for index, call in enumerate(step.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_fake_{number}_{index}",
                "call_id": _call_id(call, number, index),
                "name": call.name,
                "arguments": _arguments(call),
                "status": "completed",
            }
        )
    return items


def response_json(step: Step, number: int, model: str, status: str) -> dict[str, Any]:
    """The Response object for ``step`` (the body of response.completed)."""
    usage = step.usage
    total_input = usage.input_tokens + usage.cache_read_input_tokens
    total_input += usage.cache_creation_input_tokens
    stop = _stop(step)
    incomplete = status == "completed" and stop in ("max_tokens", "context_window_exceeded")
    reasoning_tokens = len(word_chunks(step.thinking)) if step.thinking else 0
    return {
        "id": f"resp_fake_{number}",
        "object": "response",
        "created_at": time.time(),
        "model": model,
        "status": "incomplete" if incomplete else status,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "error": None,
        "instructions": None,
        "metadata": {},
        "output": _output_items(step, number) if status != "in_progress" else [],
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "top_p": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": total_input,
            "input_tokens_details": {
                "cached_tokens": usage.cache_read_input_tokens,
                "cache_write_tokens": usage.cache_creation_input_tokens,
            },
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": total_input + usage.output_tokens,
        },
    }


def response_events(step: Step, number: int, model: str) -> list[SSEEvent]:
    """The SSE events of one streamed Responses API response for ``step``."""
    sequence = itertools.count()
    events: list[SSEEvent] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": next(sequence), **fields}))

    started = response_json(step, number, model, "in_progress")
    started["usage"] = None
    emit("response.created", response=started)
    emit("response.in_progress", response=started)
    for index, item in enumerate(_output_items(step, number)):
        _item_events(emit, index, item)
    final = response_json(step, number, model, "completed")
    emit(
        "response.incomplete" if final["status"] == "incomplete" else "response.completed",
        response=final,
    )
    return events


def _item_events(emit: Any, index: int, item: dict[str, Any]) -> None:
    item_id = item["id"]
    match item["type"]:
        case "reasoning":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "summary": [], "encrypted_content": None},
            )
            summary = item["summary"][0]["text"]
            for chunk in word_chunks(summary):
                emit(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=index,
                    summary_index=0,
                    delta=chunk,
                )
            emit(
                "response.reasoning_summary_text.done",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                text=summary,
            )
        case "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            part = item["content"][0]
            if part["type"] == "refusal":
                for chunk in word_chunks(part["refusal"]):
                    emit(
                        "response.refusal.delta",
                        item_id=item_id,
                        output_index=index,
                        content_index=0,
                        delta=chunk,
                    )
            else:
                for chunk in word_chunks(part["text"]):
                    emit(
                        "response.output_text.delta",
                        item_id=item_id,
                        output_index=index,
                        content_index=0,
                        delta=chunk,
                        logprobs=[],
                    )
                emit(
                    "response.output_text.done",
                    item_id=item_id,
                    output_index=index,
                    content_index=0,
                    text=part["text"],
                    logprobs=[],
                )
        case _:
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for piece in halves(item["arguments"]):
                emit(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=piece,
                )
            emit(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=index,
                arguments=item["arguments"],
                name=item["name"],
            )
    emit("response.output_item.done", output_index=index, item=item)


# --------------------------------------------------------------------------- Chat


def _chat_usage(step: Step) -> dict[str, Any]:
    usage = step.usage
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage.output_tokens,
        "total_tokens": prompt + usage.output_tokens,
        "prompt_tokens_details": {
            "cached_tokens": usage.cache_read_input_tokens,
            "cache_write_tokens": usage.cache_creation_input_tokens,
        },
    }


def chat_events(step: Step, number: int, model: str, *, include_usage: bool) -> list[SSEEvent]:
    """The SSE chunks of one streamed Chat Completions response for ``step``."""
    created = int(time.time())
    events: list[SSEEvent] = []

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        events.append((None, _chunk(number, model, created, [choice])))

    chunk({"role": "assistant", "content": ""})
    if step.thinking:
        for piece in word_chunks(step.thinking):
            chunk({"reasoning_content": piece})
    if step.text:
        for piece in word_chunks(step.text):
            chunk({"content": piece})
    for index, call in enumerate(step.calls):
        opening = {"name": call.name, "arguments": ""}
        chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": _call_id(call, number, index),
                        "type": "function",
                        "function": opening,
                    }
                ]
            }
        )
        for piece in halves(_arguments(call)):
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    chunk({}, _FINISH.get(_stop(step), "stop"))
    if include_usage:
        final = _chunk(number, model, created, [])
        final["usage"] = _chat_usage(step)
        events.append((None, final))
    events.append((None, "[DONE]"))
    return events


def _chunk(number: int, model: str, created: int, choices: list[Any]) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": choices,
    }


def chat_json(step: Step, number: int, model: str) -> dict[str, Any]:
    """The non-streaming Chat Completions response for ``step``."""
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.calls:
        message["tool_calls"] = [
            {
                "id": _call_id(call, number, index),
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(call)},
            }
            for index, call in enumerate(step.calls)
        ]
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": _FINISH.get(_stop(step), "stop"),
                "logprobs": None,
            }
        ],
        "usage": _chat_usage(step),
    }
