"""How full the context window is, per request.

Provider counts win: a response's ``usage.context_tokens + output_tokens`` is exactly what
the history up to and including that response occupies. Only messages appended since then
are estimated. Without any provider count (first request, a provider that reports none,
or right after compaction) the whole request is estimated.

The estimate is a calibrated heuristic, not a tokenizer (no downloads, no dependency):
UTF-8 bytes / 4 of what the model actually sees (text, tool names, tool-input JSON, tool
results, the system prompt and tool schemas), plus a few tokens of framing per message and
a fixed 1,600 per image. BPE tokenizers of Claude and GPT-4o/5 average ~4 bytes per token
on English and ~3-3.5 on code and JSON, so the estimate runs up to ~20% low on
code-heavy histories; the 80% compaction threshold absorbs that. Counting bytes instead of
characters keeps CJK text (≈1 token per character, 3 bytes) roughly right.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from loopwright.messages import (
    ContentBlock,
    ConversationMessage,
    ImageBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from loopwright.models.base import ToolSpec
from loopwright.models.capabilities import DEFAULT as DEFAULT_CAPABILITIES
from loopwright.models.capabilities import capabilities_for, register_capabilities

BYTES_PER_TOKEN = 4.0
MESSAGE_OVERHEAD_TOKENS = 4
TOOL_OVERHEAD_TOKENS = 8
IMAGE_TOKENS = 1600


def estimate_text_tokens(text: str) -> int:
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)


def estimate_block_tokens(block: ContentBlock) -> int:
    match block:
        case TextBlock(text=text):
            return estimate_text_tokens(text)
        case ThinkingBlock(thinking=thinking):
            return estimate_text_tokens(thinking)
        case ToolUseBlock(name=name, input=tool_input, raw_input=raw):
            body = raw if raw is not None else json.dumps(tool_input, ensure_ascii=False)
            return estimate_text_tokens(name) + estimate_text_tokens(body) + TOOL_OVERHEAD_TOKENS
        case ToolResultBlock(content=content):
            if isinstance(content, str):
                return estimate_text_tokens(content) + TOOL_OVERHEAD_TOKENS
            inner = sum(estimate_block_tokens(b) for b in content)
            return inner + TOOL_OVERHEAD_TOKENS
        case ImageBlock():
            return IMAGE_TOKENS
        case ServerToolBlock(provider_data=data):
            # The block goes back verbatim; search results can be large.
            wire = json.dumps(data, ensure_ascii=False) if data else ""
            return estimate_text_tokens(wire) + TOOL_OVERHEAD_TOKENS


def estimate_message_tokens(message: ConversationMessage) -> int:
    content = message.content
    if isinstance(content, str):
        return estimate_text_tokens(content) + MESSAGE_OVERHEAD_TOKENS
    return sum(estimate_block_tokens(b) for b in content) + MESSAGE_OVERHEAD_TOKENS


def estimate_tools_tokens(tools: Sequence[ToolSpec]) -> int:
    total = 0
    for spec in tools:
        schema = json.dumps(spec.input_schema, ensure_ascii=False, separators=(",", ":"))
        total += estimate_text_tokens(spec.name + spec.description + schema) + TOOL_OVERHEAD_TOKENS
    return total


def estimate_tokens(
    messages: Sequence[ConversationMessage],
    *,
    system: str = "",
    tools: Sequence[ToolSpec] = (),
) -> int:
    """An estimate of the whole request: system prompt, tool definitions and messages."""
    fixed = estimate_text_tokens(system) + estimate_tools_tokens(tools)
    return fixed + sum(estimate_message_tokens(m) for m in messages)


@dataclass(frozen=True, slots=True)
class ContextCount:
    tokens: int
    window: int
    # Tokens taken from the provider's own count; the rest of ``tokens`` is estimated.
    measured: int = 0

    @property
    def estimated(self) -> int:
        return self.tokens - self.measured

    @property
    def fraction(self) -> float:
        return self.tokens / self.window if self.window > 0 else 0.0

    def to_dict(self) -> dict[str, int | float]:
        return {
            "tokens": self.tokens,
            "window": self.window,
            "measured": self.measured,
            "estimated": self.estimated,
            "fraction": round(self.fraction, 4),
        }


class ContextMeter:
    """Tokens of the next request: the last provider count plus estimates of what followed.

    Call :meth:`record` after appending each assistant response to the history, and
    :meth:`reset` whenever the history is rewritten (tool results cleared, compaction,
    resume), since the provider's count no longer describes it.
    """

    def __init__(self, window: int) -> None:
        self.window = window
        self._anchor_length = 0
        self._anchor_tokens = 0
        self._anchor_uuid: str | None = None

    def record(self, usage: Usage, history: Sequence[ConversationMessage]) -> None:
        tokens = usage.context_tokens + usage.output_tokens
        if tokens <= 0 or not history:
            return  # the provider reported nothing: keep estimating
        self._anchor_length = len(history)
        self._anchor_tokens = tokens
        self._anchor_uuid = history[-1].uuid

    def reset(self) -> None:
        self._anchor_length, self._anchor_tokens, self._anchor_uuid = 0, 0, None

    def count(
        self,
        messages: Sequence[ConversationMessage],
        *,
        system: str = "",
        tools: Sequence[ToolSpec] = (),
    ) -> ContextCount:
        length = self._anchor_length
        anchored = (
            self._anchor_uuid is not None
            and 0 < length <= len(messages)
            and messages[length - 1].uuid == self._anchor_uuid
        )
        if not anchored:
            return ContextCount(estimate_tokens(messages, system=system, tools=tools), self.window)
        extra = sum(estimate_message_tokens(m) for m in messages[length:])
        return ContextCount(self._anchor_tokens + extra, self.window, self._anchor_tokens)


# --------------------------------------------------------------------------- windows

# The windows themselves live in the one capabilities table (models/capabilities.py).
DEFAULT_WINDOW = DEFAULT_CAPABILITIES.context_window


def register_context_window(model_prefix: str, tokens: int) -> None:
    """Set the window of a model id, or of every id starting with ``model_prefix``."""
    register_capabilities(model_prefix, context_window=tokens)


def context_window(model_name: str) -> int:
    """The context window of a model, in tokens, from the capabilities table.

    ``$LOOPWRIGHT_CONTEXT_WINDOW`` overrides everything (handy with the scripted model and
    local servers). Claude ids ending in ``[1m]`` get 1M tokens.
    """
    override = os.environ.get("LOOPWRIGHT_CONTEXT_WINDOW")
    if override and override.isdigit():
        return int(override)
    return capabilities_for(model_name).context_window
