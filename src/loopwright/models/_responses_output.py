"""A Responses API stream assembled into a ModelResponse.

Events arrive as the JSON the API sent, whichever transport carried them (read by
:func:`stream_item`).

Output items come back as our blocks with what the next request needs: reasoning items
(encrypted) in ThinkingBlocks, the message id, ``phase`` and annotations of output text
in TextBlock.provider_data, hosted-tool items (web search, code interpreter …) whole in
ServerToolBlocks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from loopwright.errors import ModelError
from loopwright.messages import (
    ContentBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from loopwright.models._openai_common import PROVIDER, kind_for_code, usage_from
from loopwright.models._sse import Event
from loopwright.models._tool_arguments import tool_use_from_arguments
from loopwright.models.base import (
    ModelEvent,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)

_API = "OpenAI Responses API"


@dataclass(frozen=True)
class Done:
    """``data: [DONE]``: the stream is over (what is left of the body is drained)."""


@dataclass(frozen=True)
class ErrorData:
    """An event whose data has an ``error`` (``OpenAIErrors.stream_error`` names its kind)."""

    message: str
    body: object


def stream_item(sse: Event) -> dict[str, Any] | Done | ErrorData:
    """One event's JSON, an error, or what ends the stream."""
    if sse.data.startswith("[DONE]"):
        return Done()
    data = json.loads(sse.data)
    if isinstance(data, dict):
        event = cast(dict[str, Any], data)
        error = event.get("error")
        if error:
            found = cast(dict[str, Any], error).get("message") if isinstance(error, dict) else None
            message = found if isinstance(found, str) and found else None
            return ErrorData(message or "An error occurred during streaming", error)
        return event
    return {}


def _object(value: object) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def without_none(value: Any) -> Any:
    """JSON with null members left out (what the SDK's ``to_dict(exclude_none=True)`` gave)."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in cast(dict[str, Any], value).items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in cast(list[Any], value)]
    return value


class Assembly:
    def __init__(self, model: str) -> None:
        self.model = model
        self.response_id: str | None = None
        self.tool_ordinal: dict[int, int] = {}
        self.done_items: dict[int, dict[str, Any]] = {}
        self.final: dict[str, Any] | None = None

    def handle(self, event: dict[str, Any]) -> ModelEvent | None:
        match event.get("type"):
            case "response.output_text.delta" | "response.refusal.delta":
                return TextDelta(event["delta"], raw=event)
            case "response.function_call_arguments.delta":
                ordinal = self.tool_ordinal.get(event.get("output_index", 0), 0)
                return ToolInputDelta(ordinal, event["delta"], raw=event)
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                return ThinkingDelta(event["delta"], raw=event)
            case "response.output_item.added":
                item = _object(event.get("item"))
                if item.get("type") == "function_call":
                    ordinal = len(self.tool_ordinal)
                    self.tool_ordinal[event.get("output_index", 0)] = ordinal
                    return ToolCallStart(ordinal, item["call_id"], item["name"], raw=event)
            case "response.output_item.done":
                self.done_items[event.get("output_index", 0)] = _object(event.get("item"))
            case "response.created":
                self.response_id = _object(event.get("response")).get("id")
            case "response.completed" | "response.incomplete":
                self.final = _object(event.get("response"))
            case "response.failed":
                error = _object(event.get("response")).get("error")
                details = _object(error)
                message = details.get("message") if error else "the response failed"
                code = details.get("code") if error else None
                raise ModelError(
                    f"{_API} response failed ({code}): {message}",
                    kind=kind_for_code(code, str(message)),
                )
            case "error":
                code, message = event.get("code"), event.get("message")
                raise ModelError(
                    f"{_API} stream error ({code}): {message}",
                    kind=kind_for_code(code, str(message)),
                )
            case _:
                pass
        return None

    def response(self) -> ModelResponse:
        final = self.final
        if final is None:
            raise ModelError(
                f"the {_API} stream ended before response.completed (connection cut)",
                kind="stream",
            )
        output = [_object(item) for item in final.get("output") or ()]
        output = output or [self.done_items[i] for i in sorted(self.done_items)]
        content, refused = _content(output)
        has_calls = any(isinstance(b, ToolUseBlock) for b in content)
        stop = "tool_use" if has_calls else "end_turn"
        status = final.get("status")
        if status == "incomplete":
            reason = _object(final.get("incomplete_details")).get("reason")
            stop = "refusal" if reason == "content_filter" else "max_tokens"
        elif refused:
            stop = "refusal"
        usage, reasoning_tokens = _usage(final.get("usage"))
        return ModelResponse(
            content=content,
            usage=usage,
            stop_reason=stop,
            model=final.get("model") or self.model,
            message_id=final.get("id") or self.response_id,
            provider_data={
                "provider": PROVIDER,
                "status": status,
                "reasoning_tokens": reasoning_tokens,
            },
        )


def _content(output: list[dict[str, Any]]) -> tuple[list[ContentBlock], bool]:
    content: list[ContentBlock] = []
    refused = False
    for item in output:
        match item.get("type"):
            case "reasoning":
                summary = "\n\n".join(_texts(item.get("summary")))
                if not summary and item.get("content"):
                    summary = "\n\n".join(_texts(item.get("content")))
                data = without_none(item)
                content.append(ThinkingBlock(summary, None, {"provider": PROVIDER, "item": data}))
            case "message":
                refused = _message_parts(item, content) or refused
            case "function_call":
                extra = {"item_id": item["id"]} if item.get("id") else None
                content.append(
                    tool_use_from_arguments(
                        item["call_id"], item["name"], item.get("arguments") or "", extra
                    )
                )
            case hosted:
                # web_search_call, code_interpreter_call, …: run by OpenAI, sent back whole.
                wire = without_none(item)
                action = wire.get("action")
                content.append(
                    ServerToolBlock(
                        str(wire.get("id", "")),
                        str(hosted).removesuffix("_call"),
                        "use",
                        dict(action) if isinstance(action, dict) else {},
                        provider_data={"provider": PROVIDER, "item": wire},
                    )
                )
    return content, refused


def _texts(parts: object) -> list[str]:
    return [str(_object(part).get("text", "")) for part in cast(list[Any], parts or [])]


def _message_parts(item: dict[str, Any], content: list[ContentBlock]) -> bool:
    """The text parts of an output message; True when one is a refusal."""
    refused = False
    base: dict[str, Any] = {"provider": PROVIDER, "item_id": item.get("id")}
    phase = item.get("phase")
    if phase is not None:
        base["phase"] = phase
    for part in cast(list[Any], item.get("content") or []):
        part = _object(part)
        if part.get("type") == "output_text":
            data = dict(base)
            annotations = part.get("annotations")
            if annotations:
                data["annotations"] = [without_none(a) for a in annotations]
            content.append(TextBlock(part.get("text", ""), provider_data=data))
        elif part.get("type") == "refusal":
            refused = True
            content.append(
                TextBlock(part.get("refusal", ""), provider_data={**base, "refusal": True})
            )
    return refused


def _usage(usage: object) -> tuple[Usage, int]:
    if not isinstance(usage, dict):
        return Usage(), 0
    fields = cast(dict[str, Any], usage)
    details = _object(fields.get("input_tokens_details"))
    result = usage_from(
        total_input=fields.get("input_tokens") or 0,
        output=fields.get("output_tokens") or 0,
        cached=details.get("cached_tokens"),
        cache_write=details.get("cache_write_tokens"),
    )
    reasoning = _object(fields.get("output_tokens_details")).get("reasoning_tokens") or 0
    return result, int(reasoning)
