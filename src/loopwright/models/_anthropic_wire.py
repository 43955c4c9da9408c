"""Our messages and request options → an Anthropic Messages API request body.

The body is a plain dict shaped like ``MessageCreateParamsStreaming`` (or the beta variant
when a task budget is set); tests validate it against those SDK TypedDicts.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models._anthropic_settings import apply_settings, server_tool_params
from loopwright.models.base import ModelRequest, ThinkingConfig

# The beta the API needs before it accepts ``output_config.task_budget``.
TASK_BUDGET_BETA = "task-budgets-2026-03-13"
DEFAULT_MAX_TOKENS = 32_000
_MIN_THINKING_BUDGET = 1024
_CACHE: dict[str, Any] = {"type": "ephemeral"}

PROVIDER = "anthropic"
_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_NOT_TOOL_ID = re.compile(r"[^a-zA-Z0-9_-]")


def wire_tool_id(call_id: str) -> str:
    """A tool_use id the Messages API accepts (``^[a-zA-Z0-9_-]+$``).

    Ids minted by other providers can hold other characters (``functions.Read:0`` from
    some OpenAI-compatible servers), and a session can change provider mid-way (fallback,
    set_model). The same mapping is applied to tool_use and tool_result, so pairs still
    match; a hash of the original keeps distinct ids distinct.
    """
    if _TOOL_ID.match(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode()).hexdigest()[:8]
    return f"{_NOT_TOOL_ID.sub('_', call_id)}_{digest}"


def build_body(
    request: ModelRequest,
    model: str,
    *,
    output_limit: int | None = None,
    messages: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The request body and the beta flags it needs. Without a max_tokens of its own the
    request asks for DEFAULT_MAX_TOKENS, or the model's output limit if that is lower.
    ``messages``: the request's messages already converted (``convert_messages``)."""
    max_tokens = request.max_tokens or min(DEFAULT_MAX_TOKENS, output_limit or DEFAULT_MAX_TOKENS)
    body: dict[str, Any] = {
        "model": model,
        "messages": convert_messages(request.messages) if messages is None else messages,
        "stream": True,
    }
    if request.system:
        body["system"] = system_blocks(request.system, request.cache_prefix_chars)
    betas: list[str] = []
    tools: list[dict[str, Any]] = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in request.tools
    ]
    if request.server_tools:
        hosted, hosted_betas = server_tool_params(request.server_tools)
        tools.extend(hosted)
        betas.extend(hosted_betas)
    if tools:
        # One breakpoint after the last tool caches every tool definition even when the
        # system prompt below it changes.
        tools[-1]["cache_control"] = _CACHE
        body["tools"] = tools
    if request.thinking is not None:
        thinking, max_tokens = thinking_param(request.thinking, max_tokens)
        body["thinking"] = thinking
    output_config: dict[str, Any] = {}
    if request.effort is not None:
        output_config["effort"] = request.effort
    if request.task_budget is not None:
        budget: dict[str, Any] = {"type": "tokens", "total": request.task_budget}
        remaining = request.metadata.get("task_budget_remaining")
        if isinstance(remaining, int):
            budget["remaining"] = remaining
        output_config["task_budget"] = budget
        betas.append(TASK_BUDGET_BETA)
    if output_config:
        body["output_config"] = output_config
    body["max_tokens"] = max_tokens
    if request.settings is not None:
        apply_settings(body, request.settings)
    return body, betas


def count_tokens_body(request: ModelRequest, model: str) -> dict[str, Any]:
    body, _ = build_body(request, model)
    for key in ("stream", "max_tokens"):
        body.pop(key, None)
    output_config = body.get("output_config")
    if isinstance(output_config, dict):
        output_config.pop("task_budget", None)
        if not output_config:
            body.pop("output_config")
    return body


def system_blocks(system: str, cache_prefix_chars: int | None) -> list[dict[str, Any]]:
    """System text with a cache breakpoint after its stable prefix.

    ``None`` means the whole system prompt is stable; ``0`` means none of it is.
    """
    stable = len(system) if cache_prefix_chars is None else max(0, cache_prefix_chars)
    if stable <= 0:
        return [{"type": "text", "text": system}]
    if stable >= len(system):
        return [{"type": "text", "text": system, "cache_control": _CACHE}]
    return [
        {"type": "text", "text": system[:stable], "cache_control": _CACHE},
        {"type": "text", "text": system[stable:]},
    ]


def thinking_param(config: ThinkingConfig, max_tokens: int) -> tuple[dict[str, Any], int]:
    """The ``thinking`` field, and max_tokens raised above a manual budget if needed."""
    match config.type:
        case "disabled":
            return {"type": "disabled"}, max_tokens
        case "adaptive":
            param: dict[str, Any] = {"type": "adaptive"}
        case "enabled":
            budget = max(_MIN_THINKING_BUDGET, config.budget_tokens or _MIN_THINKING_BUDGET)
            param = {"type": "enabled", "budget_tokens": budget}
            # The API requires budget_tokens < max_tokens; keep room for the answer.
            if budget >= max_tokens:
                max_tokens = budget + 4096
    if config.display is not None:
        param["display"] = config.display
    return param, max_tokens


def convert_messages(messages: list[AssistantMessage | UserMessage]) -> list[dict[str, Any]]:
    wire = [m for m in map(wire_message, messages) if m is not None]
    if wire:
        wire[-1] = marked_latest(wire[-1])
    return wire


def wire_message(message: AssistantMessage | UserMessage) -> dict[str, Any] | None:
    """One message on the wire, or None when none of its blocks goes to this API. The same
    for the same message at any place in the history: only the latest is marked."""
    if isinstance(message, UserMessage):
        blocks = [_user_block(b) for b in message.blocks]
        role = "user"
    else:
        blocks = [_assistant_block(b) for b in message.content]
        role = "assistant"
    content = [b for b in blocks if b is not None]
    return {"role": role, "content": content} if content else None


def marked_latest(message: dict[str, Any]) -> dict[str, Any]:
    """The request's latest message with a cache breakpoint after its last block (so the
    next request reads everything up to it back), as a copy: ``message`` is not changed."""
    *earlier, last = message["content"]
    if last.get("type") not in ("text", "image", "tool_result", "tool_use", "server_tool_use"):
        return message
    return {**message, "content": [*earlier, {**last, "cache_control": _CACHE}]}


def _user_block(block: ContentBlock) -> dict[str, Any] | None:
    match block:
        case TextBlock(text=text):
            return _text(text) if text.strip() else None
        case ImageBlock():
            return _image(block)
        case ToolResultBlock():
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": wire_tool_id(block.tool_use_id),
            }
            if isinstance(block.content, str):
                if block.content:
                    result["content"] = block.content
            else:
                parts = [
                    _image(part) if isinstance(part, ImageBlock) else _text(part.text)
                    for part in block.content
                    if isinstance(part, ImageBlock) or part.text.strip()
                ]
                if parts:
                    result["content"] = parts
            if block.is_error:
                result["is_error"] = True
            return result
        case ThinkingBlock() | ToolUseBlock() | ServerToolBlock():
            return None  # cannot appear in a user turn on this API


def _assistant_block(block: ContentBlock) -> dict[str, Any] | None:
    match block:
        case TextBlock(text=text, provider_data=data):
            if not text.strip():
                return None
            citations = (data or {}).get("citations")
            if data and data.get("provider") == PROVIDER and citations:
                # Citations of search results go back with the text they support.
                return {"type": "text", "text": text, "citations": citations}
            return _text(text)
        case ServerToolBlock(provider_data=data):
            # Only Claude's own hosted-tool blocks: their ids and encrypted results mean
            # nothing to another provider.
            wire = (data or {}).get("block")
            if (data or {}).get("provider") == PROVIDER and isinstance(wire, dict):
                return dict(wire)
            return None
        case ThinkingBlock():
            return _thinking(block)
        case ToolUseBlock():
            return {
                "type": "tool_use",
                "id": wire_tool_id(block.id),
                "name": block.name,
                "input": block.input if block.raw_input is None else {},
            }
        case ImageBlock() | ToolResultBlock():
            return None


def _thinking(block: ThinkingBlock) -> dict[str, Any] | None:
    data = block.provider_data or {}
    # Only Claude's own thinking may go back: the signature is verified server-side, and
    # other providers' reasoning (or scripted thinking) would be rejected.
    if data.get("provider") != PROVIDER:
        return None
    redacted = data.get("redacted_data")
    if isinstance(redacted, str):
        return {"type": "redacted_thinking", "data": redacted}
    if block.signature is None:
        return None
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}


def _text(text: str) -> dict[str, Any]:
    # Callers leave out whitespace-only text: the API refuses it ("text content blocks
    # must contain non-whitespace text"), and models do emit such blocks (a "\n\n" before
    # a tool call).
    return {"type": "text", "text": text}


def _image(block: ImageBlock) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.media_type, "data": block.data},
    }
