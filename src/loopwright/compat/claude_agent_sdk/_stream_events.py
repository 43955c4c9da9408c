"""Partial messages in the shape claude-agent-sdk code reads.

loopwright's StreamEvents carry provider-neutral deltas (``{"type": "text_delta", "text":
...}``). Code written for the reference looks for Anthropic stream events instead:
``message_start``, ``content_block_start``, ``content_block_delta`` with a ``text_delta`` /
``thinking_delta`` / ``input_json_delta``, ``content_block_stop``, ``message_delta`` (stop
reason and output tokens) and ``message_stop``. This module rewrites the stream into those
events, whichever provider produced it; the provider's own event stays in
``StreamEvent.raw``. It also gives ``ResultMessage.usage`` as the SDK's dict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from loopwright.errors import ResultError
from loopwright.messages import AssistantMessage, Message, ResultMessage, StreamEvent, new_uuid


class ReferenceStreamEvents:
    """Tracks which content block is open so starts and stops can be emitted around deltas."""

    def __init__(self) -> None:
        self._index = -1
        self._open: str | None = None  # the open block's kind, or its tool-call index
        self._last: StreamEvent | None = None  # session and parent ids for a closing stop
        self._in_message = False
        self.last_result: ResultMessage | None = None

    def translate(self, message: Message) -> list[Message]:
        if isinstance(message, AssistantMessage):
            closing = self._close(message)
            self._index = -1
            return [*closing, message]
        if isinstance(message, ResultMessage):
            # The SDK's ResultMessage.usage is a plain dict of token counts.
            usage: Any = message.usage.to_dict()
            self.last_result = dataclasses.replace(message, usage=usage)
            return [self.last_result]
        if not isinstance(message, StreamEvent):
            return [message]
        self._last = message
        opening: list[Message] = []
        if not self._in_message:
            self._in_message = True
            opening.append(self._wrap(message, _message_start(message)))
        return [*opening, *self._block_events(message)]

    def _block_events(self, message: StreamEvent) -> list[Message]:
        payload = message.event
        kind = payload.get("type")
        if kind == "tool_call_start":
            events = self._open_block(f"tool:{payload.get('index')}", _tool_block(payload))
            return [self._wrap(message, e) for e in events]
        if kind in ("text_delta", "thinking_delta", "tool_input_delta"):
            block, delta = _delta(payload)
            key = block["type"] if kind != "tool_input_delta" else f"tool:{payload.get('index')}"
            starts = [] if self._open == key else self._open_block(key, block)
            body = {"type": "content_block_delta", "index": self._index, "delta": delta}
            return [self._wrap(message, e) for e in (*starts, body)]
        return [message]

    def _open_block(self, key: str, block: dict[str, Any]) -> list[dict[str, Any]]:
        stop = self._stop_event()
        self._index += 1
        self._open = key
        start = {"type": "content_block_start", "index": self._index, "content_block": block}
        return [*stop, start]

    def _stop_event(self) -> list[dict[str, Any]]:
        if self._open is None:
            return []
        self._open = None
        return [{"type": "content_block_stop", "index": self._index}]

    def _close(self, message: AssistantMessage) -> list[Message]:
        last = self._last
        if last is None or not self._in_message:
            return []
        self._in_message = False
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": message.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": message.usage.output_tokens},
        }
        events = [*self._stop_event(), delta, {"type": "message_stop"}]
        return [self._wrap(last, e) for e in events]

    @staticmethod
    def _wrap(original: StreamEvent, event: dict[str, Any]) -> StreamEvent:
        # One neutral delta may become several events; each needs its own uuid.
        return dataclasses.replace(original, event=event, uuid=new_uuid())


def _message_start(first: StreamEvent) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": f"msg_{first.uuid}",
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    }


def _tool_block(payload: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": payload.get("id"), "name": payload.get("name"), "input": {}}


def _delta(payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the block this delta belongs to, the delta) for a neutral delta payload."""
    match payload.get("type"):
        case "text_delta":
            return {"type": "text", "text": ""}, {"type": "text_delta", "text": payload["text"]}
        case "thinking_delta":
            delta = {"type": "thinking_delta", "thinking": payload["thinking"]}
            return {"type": "thinking", "thinking": ""}, delta
        case _:
            delta = {"type": "input_json_delta", "partial_json": payload.get("partial_json", "")}
            return _tool_block(payload), delta


async def in_reference_shape(messages: AsyncIterator[Message]) -> AsyncGenerator[Message]:
    translator = ReferenceStreamEvents()
    try:
        async for message in messages:
            for translated in translator.translate(message):
                yield translated
    except ResultError as error:
        if translator.last_result is None:
            raise
        raise ResultError(translator.last_result) from error
