"""An Anthropic Messages stream, event by event, assembled into a ModelResponse.

Events arrive as the JSON the API sent (whichever transport carried them), so vendor
fields stay visible and no pydantic object is built per event. :func:`stream_item` reads
one server-sent event: pings and unnamed events are skipped, an ``error`` event is a
failure (``_anthropic_http`` names its kind).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from loopwright.errors import ModelError
from loopwright.messages import ContentBlock, Usage
from loopwright.models._anthropic_blocks import finish_block, start_block
from loopwright.models._anthropic_wire import PROVIDER
from loopwright.models._sse import Event
from loopwright.models.base import (
    ModelEvent,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)

STOP_REASONS: dict[str, str] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    "stop_sequence": "stop_sequence",
    "model_context_window_exceeded": "context_window_exceeded",
}


@dataclass(frozen=True)
class ErrorEvent:
    """An ``error`` event, with its message and body (``AnthropicErrors.event_error``)."""

    message: str
    body: object


def stream_item(sse: Event) -> dict[str, Any] | ErrorEvent | None:
    """One event's JSON, an ErrorEvent, or None for an event with nothing to read (a ping)."""
    if sse.event in (None, "ping"):
        return None
    if sse.event == "error":
        try:
            body: object = json.loads(sse.data)
            message = f"{body}"
        except ValueError:
            body = sse.data
            message = sse.data or "Error code: 200"
        return ErrorEvent(message, body)
    if not sse.data:
        return None
    return _object(json.loads(sse.data))


def _object(value: object) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


class Assembly:
    """Builds the final response from stream events, emitting provider-neutral deltas."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.message_id: str | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.tool_ordinal: dict[int, int] = {}
        self.usage: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.finished = False

    def handle(self, event: dict[str, Any]) -> ModelEvent | None:
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._start(event)
        if kind == "message_start":
            message = _object(event.get("message"))
            self.message_id = message.get("id")
            self.model = message.get("model") or self.model
            self._take_usage(message.get("usage"))
        elif kind == "message_delta":
            delta = _object(event.get("delta"))
            self.stop_reason = delta.get("stop_reason")
            self.stop_sequence = delta.get("stop_sequence")
            self._take_usage(event.get("usage"))
        elif kind == "message_stop":
            self.finished = True
        return None

    def _start(self, event: dict[str, Any]) -> ModelEvent | None:
        block = _object(event.get("content_block"))
        index: int = event["index"]
        self.blocks[index] = start_block(block)
        if block.get("type") == "tool_use":
            ordinal = len(self.tool_ordinal)
            self.tool_ordinal[index] = ordinal
            return ToolCallStart(ordinal, block["id"], block["name"], raw=event)
        return None

    def _delta(self, event: dict[str, Any]) -> ModelEvent | None:
        block = self.blocks.get(event.get("index", -1))
        delta = _object(event.get("delta"))
        if block is None:
            return None
        match delta.get("type"):
            case "text_delta":
                block["text"].append(delta["text"])
                return TextDelta(delta["text"], raw=event)
            case "thinking_delta":
                block["text"].append(delta["thinking"])
                return ThinkingDelta(delta["thinking"], raw=event)
            case "signature_delta":
                block["signature"] = delta["signature"]
            case "input_json_delta":
                block["json"].append(delta["partial_json"])
                ordinal = self.tool_ordinal.get(event["index"])
                if ordinal is None:
                    return None  # a server tool's input: the provider runs it, not us
                return ToolInputDelta(ordinal, delta["partial_json"], raw=event)
            case "citations_delta":
                block.setdefault("citations", []).append(delta["citation"])
            case _:
                pass
        return None

    def _take_usage(self, usage: object) -> None:
        # message_delta usage is cumulative; a None field means "unchanged".
        fields = _object(usage)
        for field in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = fields.get(field)
            if value is not None:
                self.usage[field] = int(value)

    def response(self) -> ModelResponse:
        if not self.finished:
            raise ModelError(
                "the Anthropic stream ended before message_stop (connection cut mid-response)",
                kind="stream",
            )
        content: list[ContentBlock] = []
        for index in sorted(self.blocks):
            block = finish_block(self.blocks[index])
            if block is not None:
                content.append(block)
        stop = STOP_REASONS.get(self.stop_reason or "", self.stop_reason)
        provider_data: dict[str, Any] = {"provider": PROVIDER}
        if self.stop_reason is not None:
            provider_data["stop_reason"] = self.stop_reason
        if self.stop_sequence is not None:
            provider_data["stop_sequence"] = self.stop_sequence
        return ModelResponse(
            content=content,
            usage=Usage(**self.usage),
            stop_reason=stop,
            model=self.model,
            message_id=self.message_id,
            provider_data=provider_data,
        )
