"""Run items of the OpenAI Agents SDK layer and the input items they round-trip through.

That SDK reports a run as items (a message the model wrote, a tool call, its output, a
handoff…) whose ``raw_item`` is the Responses API object, and takes a conversation back as
a list of input items (``to_input_list()``). Here both are derived from loopwright's
messages, and input items are turned back into loopwright messages (see ``input``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary

from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.base import ModelResponse as NativeResponse

TResponseInputItem: TypeAlias = dict[str, Any]
TResponseOutputItem: TypeAlias = Any


@dataclass
class RunItemBase:
    agent: Any
    raw_item: Any

    def to_input_item(self) -> TResponseInputItem:
        raw = self.raw_item
        if isinstance(raw, dict):
            return dict(raw)  # type: ignore[arg-type]
        return raw.model_dump(exclude_unset=True)  # type: ignore[no-any-return]


@dataclass
class MessageOutputItem(RunItemBase):
    type: Literal["message_output_item"] = "message_output_item"

    @property
    def text(self) -> str:
        return ItemHelpers.text_message_output(self)


@dataclass
class ToolCallItem(RunItemBase):
    type: Literal["tool_call_item"] = "tool_call_item"


@dataclass
class ToolCallOutputItem(RunItemBase):
    output: Any = None
    type: Literal["tool_call_output_item"] = "tool_call_output_item"


@dataclass
class HandoffCallItem(RunItemBase):
    type: Literal["handoff_call_item"] = "handoff_call_item"


@dataclass
class HandoffOutputItem(RunItemBase):
    source_agent: Any = None
    target_agent: Any = None
    type: Literal["handoff_output_item"] = "handoff_output_item"


@dataclass
class ReasoningItem(RunItemBase):
    type: Literal["reasoning_item"] = "reasoning_item"


@dataclass
class ToolApprovalItem(RunItemBase):
    """A tool call waiting for ``state.approve(item)`` or ``state.reject(item)``."""

    tool_name: str | None = None
    type: Literal["tool_approval_item"] = "tool_approval_item"

    @property
    def name(self) -> str:
        return self.tool_name or str(getattr(self.raw_item, "name", ""))

    @property
    def arguments(self) -> str:
        return str(getattr(self.raw_item, "arguments", ""))

    @property
    def call_id(self) -> str:
        return str(getattr(self.raw_item, "call_id", ""))


RunItem: TypeAlias = (
    MessageOutputItem
    | ToolCallItem
    | ToolCallOutputItem
    | HandoffCallItem
    | HandoffOutputItem
    | ReasoningItem
    | ToolApprovalItem
)


@dataclass
class ModelResponse:
    """One model call: its output items, usage and id."""

    output: list[Any]
    usage: Any
    response_id: str | None
    request_id: str | None = None

    def to_input_items(self) -> list[TResponseInputItem]:
        return [o.model_dump(exclude_unset=True) for o in self.output]


class ItemHelpers:
    @staticmethod
    def text_message_output(item: MessageOutputItem) -> str:
        content = getattr(item.raw_item, "content", [])
        return "".join(getattr(part, "text", "") or "" for part in content)

    @staticmethod
    def text_message_outputs(items: Sequence[Any]) -> str:
        return "".join(
            ItemHelpers.text_message_output(i) for i in items if isinstance(i, MessageOutputItem)
        )

    @staticmethod
    def extract_last_text(message: Any) -> str | None:
        content = getattr(message, "content", None)
        if not content:
            return None
        return getattr(content[-1], "text", None)

    @staticmethod
    def input_to_new_input_list(input: str | list[TResponseInputItem]) -> list[TResponseInputItem]:
        if isinstance(input, str):
            return [{"content": input, "role": "user"}]
        return [dict(i) for i in input]


# --------------------------------------------------------------------------- raw items


def output_message(message_id: str, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=message_id,
        content=[ResponseOutputText(annotations=[], text=text, type="output_text")],
        role="assistant",
        status="completed",
        type="message",
    )


def function_call(call: ToolUseBlock) -> ResponseFunctionToolCall:
    arguments = call.raw_input if call.raw_input is not None else json.dumps(call.input)
    return ResponseFunctionToolCall(
        arguments=arguments,
        call_id=call.id,
        name=call.name,
        type="function_call",
        id=f"fc_{call.id}",
        status="completed",
    )


def reasoning_item(block: ThinkingBlock, index: int, message_id: str) -> ResponseReasoningItem:
    return ResponseReasoningItem(
        id=f"rs_{message_id}_{index}",
        summary=[Summary(text=block.thinking, type="summary_text")],
        type="reasoning",
    )


def function_output(block: ToolResultBlock) -> TResponseInputItem:
    return {"call_id": block.tool_use_id, "output": block.text, "type": "function_call_output"}


def message_items(message: ConversationMessage) -> list[TResponseInputItem]:
    """A loopwright message as Responses input items (the inverse of ``input``)."""
    if isinstance(message, AssistantMessage):
        return assistant_items(message)
    return user_items(message)


def assistant_items(message: AssistantMessage) -> list[TResponseInputItem]:
    items: list[TResponseInputItem] = []
    message_id = message.message_id or f"msg_{message.uuid}"
    for index, block in enumerate(message.content):
        if isinstance(block, ThinkingBlock):
            items.append(reasoning_item(block, index, message_id).model_dump(exclude_unset=True))
    if message.text:
        items.append(output_message(message_id, message.text).model_dump(exclude_unset=True))
    items.extend(function_call(c).model_dump(exclude_unset=True) for c in message.tool_calls)
    return items


def user_items(message: UserMessage) -> list[TResponseInputItem]:
    if isinstance(message.content, str):
        return [{"content": message.content, "role": "user"}]
    items: list[TResponseInputItem] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            items.append(function_output(block))
        elif isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            url = f"data:{block.media_type};base64,{block.data}"
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
    if parts:
        only_text = len(parts) == 1 and parts[0]["type"] == "input_text"
        items.insert(0, {"role": "user", "content": parts[0]["text"] if only_text else parts})
    return items


def model_response(event: NativeResponse, usage: Any, counter: int) -> ModelResponse:
    """A native model response as that SDK's ``ModelResponse`` (its output items)."""
    message = AssistantMessage(event.content, model=event.model, message_id=event.message_id)
    output: list[Any] = []
    for item in assistant_items(message):
        if item.get("type") == "function_call":
            output.append(ResponseFunctionToolCall.model_validate(item))
        elif item.get("type") == "message":
            output.append(ResponseOutputMessage.model_validate(item))
    return ModelResponse(output, usage, event.message_id or f"resp_{counter}")
