"""A Responses API stream assembled into a ModelResponse.

Output items come back as our blocks with what the next request needs: reasoning items
(encrypted) in ThinkingBlocks, the message id, ``phase`` and annotations of output text
in TextBlock.provider_data, hosted-tool items (web search, code interpreter …) whole in
ServerToolBlocks.
"""

from __future__ import annotations

from typing import Any

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
from loopwright.models._wire import tool_use_from_arguments
from loopwright.models.base import (
    ModelEvent,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)

_API = "OpenAI Responses API"


class Assembly:
    def __init__(self, model: str) -> None:
        self.model = model
        self.response_id: str | None = None
        self.tool_ordinal: dict[int, int] = {}
        self.done_items: dict[int, Any] = {}
        self.final: Any = None

    def handle(self, event: Any) -> ModelEvent | None:
        kind: str = event.type
        match kind:
            case "response.output_text.delta" | "response.refusal.delta":
                return TextDelta(event.delta, raw=event.to_dict())
            case "response.function_call_arguments.delta":
                ordinal = self.tool_ordinal.get(event.output_index, 0)
                return ToolInputDelta(ordinal, event.delta, raw=event.to_dict())
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                return ThinkingDelta(event.delta, raw=event.to_dict())
            case "response.output_item.added":
                item = event.item
                if item.type == "function_call":
                    ordinal = len(self.tool_ordinal)
                    self.tool_ordinal[event.output_index] = ordinal
                    return ToolCallStart(ordinal, item.call_id, item.name, raw=event.to_dict())
            case "response.output_item.done":
                self.done_items[event.output_index] = event.item
            case "response.created":
                self.response_id = event.response.id
            case "response.completed" | "response.incomplete":
                self.final = event.response
            case "response.failed":
                error = event.response.error
                message = error.message if error is not None else "the response failed"
                code = error.code if error is not None else None
                raise ModelError(
                    f"{_API} response failed ({code}): {message}",
                    kind=kind_for_code(code, message),
                )
            case "error":
                raise ModelError(
                    f"{_API} stream error ({event.code}): {event.message}",
                    kind=kind_for_code(event.code, event.message),
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
        output = list(final.output) or [self.done_items[i] for i in sorted(self.done_items)]
        content, refused = _content(output)
        has_calls = any(isinstance(b, ToolUseBlock) for b in content)
        stop = "tool_use" if has_calls else "end_turn"
        if final.status == "incomplete":
            reason = getattr(final.incomplete_details, "reason", None)
            stop = "refusal" if reason == "content_filter" else "max_tokens"
        elif refused:
            stop = "refusal"
        usage, reasoning_tokens = _usage(final.usage)
        return ModelResponse(
            content=content,
            usage=usage,
            stop_reason=stop,
            model=final.model or self.model,
            message_id=final.id or self.response_id,
            provider_data={
                "provider": PROVIDER,
                "status": final.status,
                "reasoning_tokens": reasoning_tokens,
            },
        )


def _content(output: list[Any]) -> tuple[list[ContentBlock], bool]:
    content: list[ContentBlock] = []
    refused = False
    for item in output:
        match item.type:
            case "reasoning":
                summary = "\n\n".join(part.text for part in item.summary)
                if not summary and item.content:
                    summary = "\n\n".join(part.text for part in item.content)
                data = item.to_dict(exclude_none=True)
                content.append(ThinkingBlock(summary, None, {"provider": PROVIDER, "item": data}))
            case "message":
                refused = _message_parts(item, content) or refused
            case "function_call":
                extra = {"item_id": item.id} if item.id else None
                content.append(
                    tool_use_from_arguments(item.call_id, item.name, item.arguments, extra)
                )
            case hosted:
                # web_search_call, code_interpreter_call, …: run by OpenAI, sent back whole.
                wire = item.to_dict(exclude_none=True)
                action = wire.get("action")
                content.append(
                    ServerToolBlock(
                        str(wire.get("id", "")),
                        hosted.removesuffix("_call"),
                        "use",
                        dict(action) if isinstance(action, dict) else {},
                        provider_data={"provider": PROVIDER, "item": wire},
                    )
                )
    return content, refused


def _message_parts(item: Any, content: list[ContentBlock]) -> bool:
    """The text parts of an output message; True when one is a refusal."""
    refused = False
    base: dict[str, Any] = {"provider": PROVIDER, "item_id": item.id}
    phase = getattr(item, "phase", None)
    if phase is not None:
        base["phase"] = phase
    for part in item.content:
        if part.type == "output_text":
            data = dict(base)
            if part.annotations:
                data["annotations"] = [a.to_dict(exclude_none=True) for a in part.annotations]
            content.append(TextBlock(part.text, provider_data=data))
        elif part.type == "refusal":
            refused = True
            content.append(TextBlock(part.refusal, provider_data={**base, "refusal": True}))
    return refused


def _usage(usage: Any) -> tuple[Usage, int]:
    if usage is None:
        return Usage(), 0
    details = usage.input_tokens_details
    result = usage_from(
        total_input=usage.input_tokens,
        output=usage.output_tokens,
        cached=getattr(details, "cached_tokens", None),
        cache_write=getattr(details, "cache_write_tokens", None),
    )
    reasoning = getattr(usage.output_tokens_details, "reasoning_tokens", 0) or 0
    return result, int(reasoning)
