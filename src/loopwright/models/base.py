"""The one interface every provider implements: ``stream(request) -> ModelEvent``s.

Providers translate :mod:`loopwright.messages` to their wire format and back; nothing
outside ``models/`` knows a wire format.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
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
class MinimalModel(Protocol):
    """The least a model must have to be used: its ``name`` (the model id used for pricing
    and reports) and ``stream``. A user's model that has only these is adopted
    (:func:`adopt_model`) and gets the defaults of :class:`ModelBase` for the rest."""

    @property
    def name(self) -> str: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...


@runtime_checkable
class Model(MinimalModel, Protocol):
    """A model provider: every member the loop, the session and the wrappers read.

    Inherit :class:`ModelBase` to get a default for all but ``name`` and ``stream``.
    """

    @property
    def context_window(self) -> int | None:
        """The window the model itself knows (a provider's [1m] variant, a model-string
        override); None lets the session look the model id up."""
        ...

    @property
    def supports_reasoning(self) -> bool:
        """Whether effort and thinking settings mean anything to this model."""
        ...

    @property
    def created_by_loopwright(self) -> bool:
        """True for providers made from a model string: the session closes those; a model
        the user built is the user's to close (it may serve other sessions)."""
        ...

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError), before any request, what the model cannot send."""
        ...

    async def count_tokens(self, request: ModelRequest) -> int:
        """The input tokens of ``request``; NotImplementedError if the model cannot say."""
        ...

    async def aclose(self) -> None:
        """Release the model's connections (before its event loop ends)."""
        ...


class ModelBase:
    """Defaults for a Model's optional members. Providers, ScriptedModel and TestModel
    inherit it and provide ``name`` and ``stream``; so can a user's model."""

    __slots__ = ()

    # Set by providers made from a model string (a class attribute, so they can assign it).
    created_by_loopwright: bool = False

    @property
    def context_window(self) -> int | None:
        return None

    @property
    def supports_reasoning(self) -> bool:
        return True  # nothing to warn about: the settings go to the model as asked

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        return None  # offline models (scripted, test) have nothing to refuse

    async def count_tokens(self, request: ModelRequest) -> int:
        raise NotImplementedError(f"{type(self).__name__} cannot count tokens")

    async def aclose(self) -> None:
        return None


def context_window_of(model: Model) -> int | None:
    """The model's own window when it is a usable number (a subclass may set it to
    anything), else None."""
    window = model.context_window
    return window if isinstance(window, int) and not isinstance(window, bool) else None


class ModelWrapper:
    """The base of every model that wraps another (retries, durable steps, a compat
    layer's run): every member of :class:`Model` is passed on, so a wrapper cannot drop
    one. Subclasses provide ``wrapped`` and override what they change — usually
    ``stream``. The wrapped model may be a user's (or a compat layer's) object without the
    optional members: those are read through :func:`adopt_model`."""

    __slots__ = ()

    @property
    def wrapped(self) -> MinimalModel:
        raise NotImplementedError(f"{type(self).__name__} must say which model it wraps")

    @property
    def declared(self) -> Model:
        """The wrapped model with every member of the interface."""
        return adopt_model(self.wrapped)

    @property
    def name(self) -> str:
        return self.wrapped.name

    @property
    def context_window(self) -> int | None:
        return context_window_of(self.declared)

    @property
    def supports_reasoning(self) -> bool:
        return self.declared.supports_reasoning

    @property
    def created_by_loopwright(self) -> bool:
        return self.declared.created_by_loopwright

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        self.declared.check_settings(settings, server_tools)

    async def count_tokens(self, request: ModelRequest) -> int:
        return int(await self.declared.count_tokens(request))

    async def aclose(self) -> None:
        await self.declared.aclose()

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        return self.wrapped.stream(request)


def adopt_model(model: MinimalModel) -> Model:
    """``model`` with every member of :class:`Model`: itself when it has them all (ours
    inherit ModelBase), else seen through :class:`ForeignModel`. The one place a model
    that is not ours is adapted."""
    if isinstance(model, ModelBase | ModelWrapper | Model):
        return model
    return ForeignModel(model)


class ForeignModel(ModelWrapper):
    """A model object that does not inherit ModelBase (a user's duck-typed model, a compat
    layer's bridge): what it has is used, the optional members it lacks take ModelBase's
    defaults."""

    __slots__ = ("foreign",)

    def __init__(self, foreign: MinimalModel) -> None:
        self.foreign = foreign

    @property
    def wrapped(self) -> MinimalModel:
        return self.foreign

    def _own(self, member: str) -> Any:
        # The object is foreign: an optional member may be missing, and only here is it
        # looked up by name.
        return getattr(self.foreign, member, None)

    @property
    def context_window(self) -> int | None:
        window = self._own("context_window")
        return window if isinstance(window, int) and not isinstance(window, bool) else None

    @property
    def supports_reasoning(self) -> bool:
        return self._own("supports_reasoning") is not False

    @property
    def created_by_loopwright(self) -> bool:
        return False  # a foreign model is the user's (or the compat layer's) to close

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        check = self._own("check_settings")
        if check is not None:
            check(settings, server_tools)

    async def count_tokens(self, request: ModelRequest) -> int:
        counter = self._own("count_tokens")
        if counter is None:
            raise NotImplementedError(f"{self.foreign.name} cannot count tokens")
        return int(await counter(request))

    async def aclose(self) -> None:
        closer = self._own("aclose")
        if closer is not None:
            await closer()


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
