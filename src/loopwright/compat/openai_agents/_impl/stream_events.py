"""Stream events of the OpenAI Agents layer.

``raw_response_event``s carry the ``openai.types.responses`` event classes the examples
test with ``isinstance`` (text deltas, function-call argument deltas, output items added
and done, content parts done, reasoning summary deltas); ``run_item_stream_event``s carry
run items; ``agent_updated_stream_event`` marks the start and every handoff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from openai.types.responses import (
    ResponseContentPartDoneEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputText,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseTextDeltaEvent,
)

from loopwright.compat.openai_agents._impl.items import function_call, output_message
from loopwright.compat.openai_agents._impl.run_values import Delivered
from loopwright.messages import AssistantMessage, StreamEvent


@dataclass
class RawResponsesStreamEvent:
    data: Any
    type: Literal["raw_response_event"] = "raw_response_event"


@dataclass
class RunItemStreamEvent:
    name: str
    item: Any
    type: Literal["run_item_stream_event"] = "run_item_stream_event"


@dataclass
class AgentUpdatedStreamEvent:
    new_agent: Any
    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"


StreamEventType: TypeAlias = RawResponsesStreamEvent | RunItemStreamEvent | AgentUpdatedStreamEvent

_ITEM_EVENT_NAMES = {
    "message_output_item": "message_output_created",
    "tool_call_item": "tool_called",
    "tool_call_output_item": "tool_output",
    "handoff_call_item": "handoff_requested",
    "handoff_output_item": "handoff_occured",
    "reasoning_item": "reasoning_item_created",
    "tool_approval_item": "tool_approval_requested",
}


@dataclass
class EventTranslator:
    """Turns delivered messages into stream events; remembers the open response's state."""

    sequence: int = 0
    calls: dict[int, ResponseFunctionToolCall] = field(
        default_factory=dict[int, ResponseFunctionToolCall]
    )
    message_id: str = "msg_stream"

    def _next(self) -> int:
        self.sequence += 1
        return self.sequence

    def translate(self, delivered: Delivered) -> list[Any]:
        message = delivered.message
        events: list[Any] = []
        if isinstance(message, StreamEvent):
            events.extend(RawResponsesStreamEvent(e) for e in self._raw(message.event))
        elif isinstance(message, AssistantMessage):
            events.extend(RawResponsesStreamEvent(e) for e in self._done(message))
        events.extend(
            RunItemStreamEvent(_ITEM_EVENT_NAMES.get(str(i.type), str(i.type)), i)
            for i in delivered.items
        )
        if delivered.handoff is not None:
            events.append(AgentUpdatedStreamEvent(delivered.handoff[1]))
        return events

    def delta_events(self, event: dict[str, Any]) -> list[Any]:
        """The Responses stream events of one native delta (``event_to_stream_dict``)."""
        return self._raw(event)

    def done_events(self, message: AssistantMessage) -> list[Any]:
        """The ``output_item.done`` events of a finished assistant message."""
        return self._done(message)

    def _raw(self, event: dict[str, Any]) -> list[Any]:
        kind = event.get("type")
        if kind == "text_delta":
            return [
                ResponseTextDeltaEvent(
                    content_index=0,
                    delta=str(event.get("text", "")),
                    item_id=self.message_id,
                    logprobs=[],
                    output_index=0,
                    sequence_number=self._next(),
                    type="response.output_text.delta",
                )
            ]
        if kind == "thinking_delta":
            return [
                ResponseReasoningSummaryTextDeltaEvent(
                    delta=str(event.get("thinking", "")),
                    item_id="rs_stream",
                    output_index=0,
                    sequence_number=self._next(),
                    summary_index=0,
                    type="response.reasoning_summary_text.delta",
                )
            ]
        if kind == "tool_call_start":
            index = int(event.get("index", 0))
            call = ResponseFunctionToolCall(
                arguments="",
                call_id=str(event.get("id")),
                name=str(event.get("name")),
                type="function_call",
                id=f"fc_{event.get('id')}",
                status="in_progress",
            )
            self.calls[index] = call
            return [
                ResponseOutputItemAddedEvent(
                    item=call,
                    output_index=index,
                    sequence_number=self._next(),
                    type="response.output_item.added",
                )
            ]
        if kind == "tool_input_delta":
            index = int(event.get("index", 0))
            call = self.calls.get(index)
            return [
                ResponseFunctionCallArgumentsDeltaEvent(
                    delta=str(event.get("partial_json", "")),
                    item_id=call.id if call and call.id else "",
                    output_index=index,
                    sequence_number=self._next(),
                    type="response.function_call_arguments.delta",
                )
            ]
        return []

    def _done(self, message: AssistantMessage) -> list[Any]:
        events: list[Any] = []
        message_id = message.message_id or self.message_id
        if message.text:
            part = ResponseOutputText(annotations=[], text=message.text, type="output_text")
            events.append(
                ResponseContentPartDoneEvent(
                    content_index=0,
                    item_id=message_id,
                    output_index=0,
                    part=part,
                    sequence_number=self._next(),
                    type="response.content_part.done",
                )
            )
            events.append(
                ResponseOutputItemDoneEvent(
                    item=output_message(message_id, message.text),
                    output_index=0,
                    sequence_number=self._next(),
                    type="response.output_item.done",
                )
            )
        for index, call in enumerate(message.tool_calls):
            events.append(
                ResponseOutputItemDoneEvent(
                    item=function_call(call),
                    output_index=index,
                    sequence_number=self._next(),
                    type="response.output_item.done",
                )
            )
        self.calls.clear()
        return events
