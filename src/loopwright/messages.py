"""Content blocks, the message stream and token usage.

Every type is a frozen dataclass with a ``type`` tag and a lossless ``to_dict`` /
``from_dict`` pair, so a transcript can be written as JSON lines and read back
into exactly the same objects.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Literal, Self, TypeAlias


def new_uuid() -> str:
    """A random (version 4) UUID as text, as ``str(uuid.uuid4())`` gives it: 16 bytes of
    os.urandom with the version and variant bits set. Spelled out because the uuid module
    imports platform, and every process makes ids before its first request (start-up)."""
    h = os.urandom(16).hex()
    variant = "89ab"[int(h[16], 16) & 3]
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{variant}{h[17:20]}-{h[20:]}"


# --------------------------------------------------------------------------- usage


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one response, or of many added together."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_input_tokens
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the prompt of this response occupied in the context window."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def to_dict(self) -> dict[str, Any]:
        # Spelled out: dataclasses.asdict deep-copies and is ~10x slower, on every response.
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(**{k: int(v or 0) for k, v in data.items() if k in _USAGE_FIELDS})


_USAGE_FIELDS = {f.name for f in dataclasses.fields(Usage)}


# --------------------------------------------------------------------------- blocks


class _BlockJSON:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return block_to_dict(self)  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        block = block_from_dict(data)
        if not isinstance(block, cls):
            raise ValueError(f"expected a {cls.__name__}, got type {data.get('type')!r}")
        return block


class _MessageJSON:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return message_to_dict(self)  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        message = message_from_dict(data)
        if not isinstance(message, cls):
            raise ValueError(f"expected a {cls.__name__}, got type {data.get('type')!r}")
        return message


@dataclass(frozen=True, slots=True)
class TextBlock(_BlockJSON):
    """Text. ``provider_data`` keeps what the provider attached (citations, the Responses
    message id and ``phase``) so the text goes back exactly as it came. Two blocks with the
    same text are equal: provider_data is wire bookkeeping, not content."""

    text: str
    provider_data: dict[str, Any] | None = field(default=None, compare=False)
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingBlock(_BlockJSON):
    """Model reasoning. ``signature`` and ``provider_data`` are opaque and sent back as-is."""

    thinking: str
    signature: str | None = None
    provider_data: dict[str, Any] | None = None
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolUseBlock(_BlockJSON):
    """A tool call. ``raw_input`` is set only when the model's arguments were not valid JSON."""

    id: str
    name: str
    input: dict[str, Any]
    raw_input: str | None = None
    provider_data: dict[str, Any] | None = None
    type: Literal["tool_use"] = "tool_use"


@dataclass(frozen=True, slots=True)
class ImageBlock(_BlockJSON):
    """An image, base64-encoded."""

    media_type: str
    data: str
    type: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class ToolResultBlock(_BlockJSON):
    tool_use_id: str
    content: str | list[TextBlock | ImageBlock]
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


@dataclass(frozen=True, slots=True)
class ServerToolBlock(_BlockJSON):
    """A hosted tool the provider ran itself (web search, web fetch, code execution): the
    call (``kind="use"``) or its result. loopwright never executes it; the wire block rides
    in ``provider_data`` and goes back verbatim to the provider that sent it."""

    id: str
    name: str
    kind: Literal["use", "result"]
    input: dict[str, Any] = field(default_factory=dict[str, Any])
    provider_data: dict[str, Any] | None = None
    type: Literal["server_tool"] = "server_tool"


ContentBlock: TypeAlias = (
    TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock | ServerToolBlock
)

_BLOCK_TYPES: dict[str, type[Any]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
    "image": ImageBlock,
    "server_tool": ServerToolBlock,
}


def block_to_dict(block: ContentBlock) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in dataclasses.fields(block):
        value = getattr(block, f.name)
        if value is None and f.name == "provider_data" and isinstance(block, TextBlock):
            continue  # plain text keeps its short, Claude-shaped form
        if f.name == "content" and isinstance(value, list):
            value = [block_to_dict(b) for b in value]
        data[f.name] = value
    return data


def block_from_dict(data: dict[str, Any]) -> ContentBlock:
    kind = data.get("type")
    cls = _BLOCK_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown content block type {kind!r}")
    values = dict(data)
    if kind == "tool_result" and isinstance(values.get("content"), list):
        values["content"] = [block_from_dict(b) for b in values["content"]]
    names = _field_names(cls)
    result: ContentBlock = cls(**{k: v for k, v in values.items() if k in names})
    return result


# --------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class SystemMessage(_MessageJSON):
    """Out-of-band information: ``init`` first, ``compact_boundary``, ``api_retry``…"""

    subtype: str
    data: dict[str, Any] = field(default_factory=dict[str, Any])
    uuid: str = field(default_factory=new_uuid)
    type: Literal["system"] = "system"


@dataclass(frozen=True, slots=True)
class AssistantMessage(_MessageJSON):
    content: list[ContentBlock]
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    stop_reason: str | None = None
    message_id: str | None = None
    parent_tool_use_id: str | None = None
    uuid: str = field(default_factory=new_uuid)
    type: Literal["assistant"] = "assistant"

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]


@dataclass(frozen=True, slots=True)
class UserMessage(_MessageJSON):
    """A prompt, streamed user input, or the tool results of one turn."""

    content: str | list[ContentBlock]
    parent_tool_use_id: str | None = None
    uuid: str = field(default_factory=new_uuid)
    type: Literal["user"] = "user"

    @property
    def blocks(self) -> list[ContentBlock]:
        if isinstance(self.content, str):
            return [TextBlock(self.content)]
        return list(self.content)


@dataclass(frozen=True, slots=True)
class StreamEvent(_MessageJSON):
    """A provider-neutral delta (only with ``include_partial_messages``).

    ``event`` holds ``{"type": "text_delta" | "thinking_delta" | "tool_input_delta" |
    "tool_call_start", ...}``; ``raw`` is the provider's own event when there is one.
    """

    event: dict[str, Any]
    session_id: str = ""
    parent_tool_use_id: str | None = None
    raw: dict[str, Any] | None = None
    uuid: str = field(default_factory=new_uuid)
    type: Literal["stream_event"] = "stream_event"


ResultSubtype = Literal[
    "success",
    "error_max_turns",
    "error_max_budget_usd",
    "error_max_tokens_budget",
    "error_during_execution",
    "error_max_structured_output_retries",
    "error_guardrail_tripped",
    "interrupted",
    "pending_approval",  # calls wait for a person: answer them by resuming with approvals
]


@dataclass(frozen=True, slots=True)
class ResultMessage(_MessageJSON):
    """Always the last message of a run."""

    subtype: ResultSubtype
    is_error: bool
    num_turns: int
    session_id: str
    duration_ms: int
    duration_api_ms: int
    total_cost_usd: float | None
    usage: Usage
    result: str | None = None
    structured_output: Any = None
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    stop_reason: str | None = None
    permission_denials: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    errors: list[str] = field(default_factory=list[str])
    # With subtype pending_approval: each call that waits (tool_use_id, tool_name, input,
    # reason, suggestion, deferred_at, deadline).
    pending_approvals: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    uuid: str = field(default_factory=new_uuid)
    type: Literal["result"] = "result"


Message: TypeAlias = SystemMessage | AssistantMessage | UserMessage | StreamEvent | ResultMessage
ConversationMessage: TypeAlias = AssistantMessage | UserMessage

_MESSAGE_TYPES: dict[str, type[Any]] = {
    "system": SystemMessage,
    "assistant": AssistantMessage,
    "user": UserMessage,
    "stream_event": StreamEvent,
    "result": ResultMessage,
}


def message_to_dict(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in dataclasses.fields(message):
        value = getattr(message, f.name)
        if isinstance(value, Usage):
            value = value.to_dict()
        elif f.name == "content" and isinstance(value, list):
            value = [block_to_dict(b) for b in value]
        data[f.name] = value
    return data


def _field_names(cls: type[Any]) -> frozenset[str]:
    # Cached: resuming a long session decodes every message of it.
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    return names


_FIELD_NAMES: dict[type[Any], frozenset[str]] = {}


def message_from_dict(data: dict[str, Any]) -> Message:
    kind = data.get("type")
    cls = _MESSAGE_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown message type {kind!r}")
    names = _field_names(cls)
    values = {k: v for k, v in data.items() if k in names}
    if isinstance(values.get("usage"), dict):
        values["usage"] = Usage.from_dict(values["usage"])
    if isinstance(values.get("content"), list):
        values["content"] = [block_from_dict(b) for b in values["content"]]
    message: Message = cls(**values)
    return message
