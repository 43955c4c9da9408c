"""The one interface every provider implements: ``stream(request) -> ModelEvent``s.

Providers translate :mod:`loopwright.messages` to their wire format and back; nothing
outside ``models/`` knows a wire format.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from loopwright.messages import ContentBlock, ConversationMessage, Usage
from loopwright.models.settings import ModelSettings, ServerTool

Effort = Literal["low", "medium", "high", "xhigh", "max"]
StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "pause_turn",
    "refusal",
    "stop_sequence",
    "context_window_exceeded",
]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the model is told about a tool."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ThinkingConfig:
    type: Literal["adaptive", "enabled", "disabled"] = "adaptive"
    budget_tokens: int | None = None
    display: Literal["summarized", "omitted"] | None = None


@dataclass(frozen=True, slots=True)
class ResponseFormat:
    """A JSON schema the answer must match, for providers with native structured output
    (OpenAI's Responses ``text.format`` and Chat ``response_format``); others ignore it."""

    name: str
    schema: dict[str, Any]
    strict: bool = True


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one model call needs, provider-neutral."""

    model: str
    system: str
    messages: list[ConversationMessage]
    tools: list[ToolSpec] = field(default_factory=list[ToolSpec])
    max_tokens: int | None = None
    effort: Effort | None = None
    thinking: ThinkingConfig | None = None
    task_budget: int | None = None
    # Stable-prefix marker: system text up to this offset (project memory included) is cacheable.
    cache_prefix_chars: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict[str, Any])
    # Sampling, tool choice, tiers, passthrough headers/body (mapped per provider).
    settings: ModelSettings | None = None
    # The provider's hosted tools (web search, code execution…), by name or as its dict.
    server_tools: tuple[ServerTool, ...] = ()
    # Native structured output: the final answer is JSON matching this schema.
    response_format: ResponseFormat | None = None


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str
    raw: dict[str, Any] | None = None
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    thinking: str
    raw: dict[str, Any] | None = None
    kind: Literal["thinking_delta"] = "thinking_delta"


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    index: int
    id: str
    name: str
    raw: dict[str, Any] | None = None
    kind: Literal["tool_call_start"] = "tool_call_start"


@dataclass(frozen=True, slots=True)
class ToolInputDelta:
    index: int
    partial_json: str
    raw: dict[str, Any] | None = None
    kind: Literal["tool_input_delta"] = "tool_input_delta"


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """A retryable failure the model wrapper is about to retry (shown as ``api_retry``)."""

    attempt: int
    max_retries: int
    delay_seconds: float
    error: str
    status_code: int | None = None
    kind: Literal["retry"] = "retry"


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """The assembled response; always the last event of a successful stream."""

    content: list[ContentBlock]
    usage: Usage
    stop_reason: str | None
    model: str
    message_id: str | None = None
    provider_data: dict[str, Any] | None = None
    kind: Literal["response"] = "response"


ModelEvent: TypeAlias = (
    TextDelta | ThinkingDelta | ToolCallStart | ToolInputDelta | RetryNotice | ModelResponse
)


@runtime_checkable
class Model(Protocol):
    """A model provider. ``name`` is the model id used for pricing and reports."""

    @property
    def name(self) -> str: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...


def event_to_stream_dict(event: ModelEvent) -> dict[str, Any] | None:
    """The provider-neutral payload of a StreamEvent, or None for non-delta events."""
    match event:
        case TextDelta(text=text):
            return {"type": "text_delta", "text": text}
        case ThinkingDelta(thinking=thinking):
            return {"type": "thinking_delta", "thinking": thinking}
        case ToolCallStart(index=index, id=call_id, name=name):
            return {"type": "tool_call_start", "index": index, "id": call_id, "name": name}
        case ToolInputDelta(index=index, partial_json=partial):
            return {"type": "tool_input_delta", "index": index, "partial_json": partial}
        case RetryNotice() | ModelResponse():
            return None
