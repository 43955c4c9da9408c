"""A Chat Completions stream (plain JSON chunks) assembled into a ModelResponse.

The stream is complete when the wire says so in any of its ways: a ``finish_reason``,
the ``[DONE]`` sentinel, or a closing usage-only chunk (some compatible servers send only
the last two). A connection cut before any of them is a stream error, and retried.
"""

from __future__ import annotations

from typing import Any, cast

from loopwright.errors import ModelError
from loopwright.messages import ContentBlock, TextBlock, ThinkingBlock
from loopwright.models._chat_reasoning import (
    ThinkTagSplitter,
    chunk_usage,
    delta_reasoning,
    merge_reasoning_details,
    usage_of,
)
from loopwright.models._openai_common import PROVIDER, kind_for_code
from loopwright.models._tool_arguments import tool_use_from_arguments
from loopwright.models.base import (
    ModelEvent,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)

API = "Chat Completions API"
_FINISH = {
    "stop": "end_turn",
    "eos": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}


class ChatAssembly:
    def __init__(self, model: str) -> None:
        self.model = model
        self.message_id: str | None = None
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.reasoning_field: str | None = None
        self.reasoning_details: list[dict[str, Any]] = []
        self.calls: dict[int, dict[str, Any]] = {}
        # Wire index → our key, for servers that reuse an index for a second call.
        self.moved: dict[int, int] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.done = False
        self._tags = ThinkTagSplitter()

    def handle(self, chunk: dict[str, Any]) -> list[ModelEvent]:
        error = chunk.get("error")
        if error:
            raise _stream_error(error)
        self.message_id = self.message_id or chunk.get("id")
        self.model = chunk.get("model") or self.model
        usage = chunk_usage(chunk)
        choices = cast(list[dict[str, Any]], chunk.get("choices") or [])
        if usage is not None:
            self.usage = usage
            if not choices:
                self.done = True  # the closing usage chunk of include_usage
        events: list[ModelEvent] = []
        for choice in choices:
            if choice.get("index", 0) != 0:
                continue
            if choice.get("finish_reason") is not None:
                self.finish_reason = choice["finish_reason"]
            delta = choice.get("delta") or choice.get("message") or {}
            events.extend(self._delta(cast(dict[str, Any], delta), chunk))
        return events

    def _delta(self, delta: dict[str, Any], chunk: dict[str, Any]) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        reasoning = delta_reasoning(delta)
        if reasoning:
            self.reasoning_field = self.reasoning_field or _field_of(delta)
            self.thinking.append(reasoning)
            events.append(ThinkingDelta(reasoning, raw=chunk))
        merge_reasoning_details(self.reasoning_details, delta)
        content = delta.get("content")
        if isinstance(content, str) and content:
            events.extend(self._content(self._tags.feed(content), chunk))
        for call in delta.get("tool_calls") or ():
            events.extend(self._tool_delta(cast(dict[str, Any], call), chunk))
        return events

    def _content(self, pieces: list[tuple[str, str]], chunk: dict[str, Any]) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        for kind, piece in pieces:
            if kind == "thinking":
                self.reasoning_field = self.reasoning_field or "think_tag"
                self.thinking.append(piece)
                events.append(ThinkingDelta(piece, raw=chunk))
            else:
                self.text.append(piece)
                events.append(TextDelta(piece, raw=chunk))
        return events

    def _tool_delta(self, call: dict[str, Any], chunk: dict[str, Any]) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        wire_index = call.get("index")
        call_id = call.get("id")
        if not isinstance(wire_index, int):
            # Some compatible servers omit the index: a new id starts a new call.
            index = len(self.calls) if call_id or not self.calls else max(self.calls)
        else:
            index = self.moved.get(wire_index, wire_index)
        state = self.calls.get(index)
        if state is not None and call_id and call_id != state["id"]:
            # Others number every parallel call 0: a new id at a used index is a new call,
            # not more arguments for the old one (whose JSON it would corrupt).
            index, state = max(self.calls) + 1, None
            if isinstance(wire_index, int):
                self.moved[wire_index] = index
        function = cast(dict[str, Any], call.get("function") or {})
        if state is None:
            ordinal = len(self.calls)
            new_id = call_id or f"call_{ordinal}_{self.message_id or 'chat'}"
            name = function.get("name") or ""
            fresh: dict[str, Any] = {"ordinal": ordinal, "id": new_id, "name": name}
            fresh["arguments"] = []
            self.calls[index] = state = fresh
            events.append(ToolCallStart(ordinal, new_id, name, raw=chunk))
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            state["arguments"].append(arguments)
            events.append(ToolInputDelta(state["ordinal"], arguments, raw=chunk))
        return events

    def flush(self) -> list[ModelEvent]:
        """Content held back while a ``<think>`` tag could still be forming."""
        return self._content(self._tags.flush(), {})

    def response(self) -> ModelResponse:
        if self.finish_reason is None and not self.done:
            raise ModelError(
                f"the {API} stream ended without a finish_reason, [DONE] or a final usage "
                "chunk (connection cut)",
                kind="stream",
            )
        content: list[ContentBlock] = []
        if self.thinking:
            content.append(ThinkingBlock("".join(self.thinking), None, self._thinking_data()))
        if self.text:
            content.append(TextBlock("".join(self.text)))
        for index in sorted(self.calls):
            state = self.calls[index]
            content.append(
                tool_use_from_arguments(state["id"], state["name"], "".join(state["arguments"]))
            )
        finish = self.finish_reason or ("tool_calls" if self.calls else "stop")
        stop = _FINISH.get(finish, finish)
        if stop == "end_turn" and self.calls:
            stop = "tool_use"  # some servers say "stop" even when they called tools
        return ModelResponse(
            content=content,
            usage=usage_of(self.usage),
            stop_reason=stop,
            model=self.model,
            message_id=self.message_id,
            provider_data={"provider": PROVIDER, "finish_reason": self.finish_reason},
        )

    def _thinking_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"provider": PROVIDER, "field": self.reasoning_field}
        if self.reasoning_details:
            data["reasoning_details"] = self.reasoning_details
        return data


def _field_of(delta: dict[str, Any]) -> str:
    for field in ("reasoning_content", "reasoning"):
        if isinstance(delta.get(field), str) and delta.get(field):
            return field
    return "reasoning_details"


def _stream_error(error: Any) -> ModelError:
    details = cast(dict[str, Any], error) if isinstance(error, dict) else {"message": str(error)}
    message = str(details.get("message") or "An error occurred during streaming")
    code = details.get("code") or details.get("type")
    code_text = str(code) if code is not None else None
    return ModelError(
        f"{API} stream error ({code_text or 'unknown'}): {message}",
        kind=kind_for_code(code_text, message),
    )
