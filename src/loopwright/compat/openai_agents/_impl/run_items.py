"""The run items a native message stands for (``RunResult.new_items``): what the model
said, the calls it made, and the tools' outputs."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from openai.types.responses import ResponseFunctionToolCall

from loopwright.compat.openai_agents._impl.items import (
    HandoffCallItem,
    MessageOutputItem,
    ReasoningItem,
    ToolCallItem,
    ToolCallOutputItem,
    function_output,
    output_message,
    reasoning_item,
)
from loopwright.compat.openai_agents._impl.items import (
    function_call as call_item,
)
from loopwright.messages import (
    AssistantMessage,
    ThinkingBlock,
    ToolResultBlock,
    UserMessage,
)


def assistant_run_items(
    message: AssistantMessage, agent: Any, handoff_names: Collection[str]
) -> list[Any]:
    items: list[Any] = []
    message_id = message.message_id or f"msg_{message.uuid}"
    for index, block in enumerate(message.content):
        if isinstance(block, ThinkingBlock):
            items.append(ReasoningItem(agent, reasoning_item(block, index, message_id)))
    if message.text:
        items.append(MessageOutputItem(agent, output_message(message_id, message.text)))
    for call in message.tool_calls:
        if call.name == "StructuredOutput":
            continue
        kind = HandoffCallItem if call.name in handoff_names else ToolCallItem
        items.append(kind(agent, call_item(call)))
    return items


def tool_output_run_items(
    message: UserMessage,
    agent: Any,
    earlier: Sequence[Any],
    handoff_names: Collection[str],
    tool_outputs: Mapping[str, tuple[Any, Any]],
) -> list[Any]:
    """Output items for the tool results in ``message``; ``earlier`` (the run's items so
    far) names each result's call."""
    items: list[Any] = []
    for block in message.blocks:
        if not isinstance(block, ToolResultBlock):
            continue
        name = _call_name(earlier, block.tool_use_id)
        if name is None and block.tool_use_id not in tool_outputs:
            continue  # the answer to a StructuredOutput call (no tool call item was made)
        if name in handoff_names and not block.is_error:
            continue  # reported as a HandoffOutputItem with the switch
        _, raw = tool_outputs.get(block.tool_use_id, (None, block.text))
        items.append(ToolCallOutputItem(agent, function_output(block), output=raw))
    return items


def _call_name(items: Sequence[Any], call_id: str) -> str | None:
    for item in reversed(items):
        if isinstance(item, ToolCallItem | HandoffCallItem):
            raw = item.raw_item
            if isinstance(raw, ResponseFunctionToolCall) and raw.call_id == call_id:
                return raw.name
    return None
