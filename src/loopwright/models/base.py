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


def context_window_of(model: Model) -> int | None:
    """The window the model itself knows (a provider's [1m] variant, a model-string
    override), or None: ``context_window`` is an optional member of a Model."""
    window = getattr(model, "context_window", None)
    return window if isinstance(window, int) and not isinstance(window, bool) else None


class ModelWrapper:
    """The base of every model that wraps another (retries, durable steps, a compat
    layer's run): name, context window, token counting, closing and streaming are passed
    on, so a wrapper cannot drop one. Subclasses provide ``wrapped`` and override what they
    change — usually ``stream``."""

    __slots__ = ()

    @property
    def wrapped(self) -> Model:
        raise NotImplementedError(f"{type(self).__name__} must say which model it wraps")

    @property
    def name(self) -> str:
        return self.wrapped.name

    @property
    def context_window(self) -> int | None:
        return context_window_of(self.wrapped)

    async def count_tokens(self, request: ModelRequest) -> int:
        counter = getattr(self.wrapped, "count_tokens", None)
        if counter is None:
            raise NotImplementedError(f"{self.wrapped.name} cannot count tokens")
        return int(await counter(request))

    async def aclose(self) -> None:
        closer = getattr(self.wrapped, "aclose", None)
        if closer is not None:
            await closer()

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        return self.wrapped.stream(request)


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
