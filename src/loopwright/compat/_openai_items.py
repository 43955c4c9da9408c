"""Run items and stream events in the shape of the OpenAI Agents SDK.

That SDK reports a run as items (a message the model wrote, a tool call, a tool's output)
and streams them as events next to raw text deltas. Here both are derived from loopwright's
message stream, so ``result.new_items`` and ``stream_events()`` describe the same run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from loopwright.messages import (
    AssistantMessage,
    Message,
    StreamEvent,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)


@dataclass(frozen=True, slots=True)
class MessageOutputItem:
    """Text the model wrote (``raw_item`` is the whole AssistantMessage)."""

    agent: Any
    raw_item: AssistantMessage
    type: Literal["message_output_item"] = "message_output_item"

    @property
    def text(self) -> str:
        return self.raw_item.text


@dataclass(frozen=True, slots=True)
class ToolCallItem:
    agent: Any
    raw_item: ToolUseBlock
    type: Literal["tool_call_item"] = "tool_call_item"


@dataclass(frozen=True, slots=True)
class ToolCallOutputItem:
    agent: Any
    raw_item: ToolResultBlock
    output: str
    type: Literal["tool_call_output_item"] = "tool_call_output_item"


RunItem: TypeAlias = MessageOutputItem | ToolCallItem | ToolCallOutputItem


class ItemHelpers:
    @staticmethod
    def text_message_output(item: MessageOutputItem) -> str:
        return item.text

    @staticmethod
    def text_message_outputs(items: list[RunItem]) -> str:
        return "".join(i.text for i in items if isinstance(i, MessageOutputItem))


@dataclass(frozen=True, slots=True)
class ResponseTextDeltaEvent:
    """A piece of streamed text. Carries the ``type`` and ``delta`` the Responses API event
    has, so code that checks ``event.data.type == "response.output_text.delta"`` works."""

    delta: str
    type: Literal["response.output_text.delta"] = "response.output_text.delta"


@dataclass(frozen=True, slots=True)
class ResponseDeltaEvent:
    """Any other streamed piece, named like its Responses API event; ``payload`` is
    loopwright's provider-neutral delta."""

    type: str
    delta: str
    payload: dict[str, Any]


# loopwright delta kind -> (Responses API event type, the payload key holding the text)
_DELTA_TYPES = {
    "thinking_delta": ("response.reasoning_summary_text.delta", "thinking"),
    "tool_input_delta": ("response.function_call_arguments.delta", "partial_json"),
    "tool_call_start": ("response.output_item.added", "name"),
}


@dataclass(frozen=True, slots=True)
class RawResponsesStreamEvent:
    data: Any
    type: Literal["raw_response_event"] = "raw_response_event"


RunItemEventName = Literal["message_output_created", "tool_called", "tool_output"]


@dataclass(frozen=True, slots=True)
class RunItemStreamEvent:
    name: RunItemEventName
    item: RunItem
    type: Literal["run_item_stream_event"] = "run_item_stream_event"


@dataclass(frozen=True, slots=True)
class AgentUpdatedStreamEvent:
    new_agent: Any
    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"


AgentStreamEvent: TypeAlias = RawResponsesStreamEvent | RunItemStreamEvent | AgentUpdatedStreamEvent


def items_of(message: Message, agent: Any) -> list[RunItem]:
    """The run items one loopwright message stands for (none for system messages)."""
    if isinstance(message, AssistantMessage):
        items: list[RunItem] = []
        if message.text:
            items.append(MessageOutputItem(agent, message))
        items.extend(ToolCallItem(agent, call) for call in message.tool_calls)
        return items
    if isinstance(message, UserMessage) and not isinstance(message.content, str):
        return [
            ToolCallOutputItem(agent, block, block.text)
            for block in message.content
            if isinstance(block, ToolResultBlock)
        ]
    return []


_EVENT_NAMES: dict[str, RunItemEventName] = {
    "message_output_item": "message_output_created",
    "tool_call_item": "tool_called",
    "tool_call_output_item": "tool_output",
}


def events_of(message: Message, agent: Any) -> list[AgentStreamEvent]:
    if isinstance(message, StreamEvent):
        kind = str(message.event.get("type"))
        if kind == "text_delta":
            delta = str(message.event.get("text", ""))
            return [RawResponsesStreamEvent(ResponseTextDeltaEvent(delta))]
        name, key = _DELTA_TYPES.get(kind, (kind, "delta"))
        delta = str(message.event.get(key, ""))
        return [RawResponsesStreamEvent(ResponseDeltaEvent(name, delta, message.event))]
    return [RunItemStreamEvent(_EVENT_NAMES[i.type], i) for i in items_of(message, agent)]
