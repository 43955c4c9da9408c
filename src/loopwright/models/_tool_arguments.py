"""A model's tool-call arguments: from the JSON text it streamed, and back to the text."""

from __future__ import annotations

import json
from typing import Any, cast

from loopwright.messages import ToolUseBlock


def tool_use_from_arguments(
    call_id: str, name: str, raw: str, provider_data: dict[str, Any] | None = None
) -> ToolUseBlock:
    """A ToolUseBlock from the model's raw JSON; invalid JSON keeps the text in raw_input."""
    if not raw.strip():
        return ToolUseBlock(call_id, name, {}, provider_data=provider_data)
    parsed = decode_arguments(raw)
    if parsed is None:
        return ToolUseBlock(call_id, name, {}, raw_input=raw, provider_data=provider_data)
    return ToolUseBlock(call_id, name, parsed, provider_data=provider_data)


def decode_arguments(raw: str) -> dict[str, Any] | None:
    """The arguments as an object, or None when they must stay raw text for the tool
    executor to refuse with an error result: invalid JSON, not an object, nested too deep
    for the decoder (RecursionError), or holding a lone surrogate that no next request
    could encode."""
    try:
        parsed = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(parsed, dict):
        return None
    try:
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return None
    return cast(dict[str, Any], parsed)


def tool_arguments_json(block: ToolUseBlock) -> str:
    """The arguments to send back: the model's own text when it was not valid JSON."""
    if block.raw_input is not None:
        return block.raw_input
    return json.dumps(block.input, ensure_ascii=False)
