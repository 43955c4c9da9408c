"""Raw Anthropic Messages stream events, synthesised from loopwright's neutral deltas.

The SDKs' users read ``stream_event.event`` as Anthropic's own events (``message_start``,
``content_block_start``/``delta``/``stop``, ``message_delta``, ``message_stop``). loopwright
streams provider-neutral deltas for every provider, so one synthesiser serves Anthropic,
OpenAI and local models alike; the response's ``AssistantMessage`` closes the message.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from loopwright.messages import AssistantMessage


@dataclass(slots=True)
class _OpenBlock:
    index: int
    kind: str  # "text" | "thinking" | "tool_use"


@dataclass(slots=True)
class AnthropicEvents:
    """One model response in progress (per thread: the main one or a subagent's)."""

    model: str
    started: bool = False
    next_index: int = 0
    current: _OpenBlock | None = None
    open_blocks: list[int] = field(default_factory=list[int])
    tool_blocks: dict[int, int] = field(default_factory=dict[int, int])  # theirs -> ours

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The raw events for one neutral delta (a message_start first, when due)."""
        out: list[dict[str, Any]] = [] if self.started else [self._message_start()]
        self.started = True
        kind = event.get("type")
        if kind == "text_delta":
            out += self._ensure("text", {"type": "text", "text": ""})
            delta = {"type": "text_delta", "text": event.get("text", "")}
            out.append(self._delta(self._index(), delta))
        elif kind == "thinking_delta":
            out += self._ensure("thinking", {"type": "thinking", "thinking": "", "signature": ""})
            delta = {"type": "thinking_delta", "thinking": event.get("thinking", "")}
            out.append(self._delta(self._index(), delta))
        elif kind == "tool_call_start":
            block = {
                "type": "tool_use",
                "id": event.get("id"),
                "name": event.get("name"),
                "input": {},
            }
            out += self._start("tool_use", block)
            self.tool_blocks[int(event.get("index", 0))] = self._index()
        elif kind == "tool_input_delta":
            index = self.tool_blocks.get(int(event.get("index", 0)), self._index())
            delta = {"type": "input_json_delta", "partial_json": event.get("partial_json", "")}
            out.append(self._delta(index, delta))
        return out

    def finish(self, message: AssistantMessage) -> list[dict[str, Any]]:
        """Close the response the AssistantMessage completes (nothing if none streamed)."""
        if not self.started:
            return []
        out: list[dict[str, Any]] = [
            {"type": "content_block_stop", "index": index} for index in self.open_blocks
        ]
        usage = message.usage
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message.stop_reason, "stop_sequence": None},
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_input_tokens": usage.cache_read_input_tokens,
                    "cache_creation_input_tokens": usage.cache_creation_input_tokens,
                },
            }
        )
        out.append({"type": "message_stop"})
        self.started, self.next_index, self.current = False, 0, None
        self.open_blocks, self.tool_blocks = [], {}
        return out

    def _message_start(self) -> dict[str, Any]:
        return {
            "type": "message_start",
            "message": {
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            },
        }

    def _ensure(self, kind: str, block: dict[str, Any]) -> list[dict[str, Any]]:
        if self.current is not None and self.current.kind == kind:
            return []
        return self._start(kind, block)

    def _start(self, kind: str, block: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.current is not None and self.current.kind != "tool_use":
            # Text and thinking end when the next block starts; tool inputs may interleave
            # (parallel calls on OpenAI), so those stay open until the message ends.
            out.append({"type": "content_block_stop", "index": self.current.index})
            self.open_blocks.remove(self.current.index)
        self.current = _OpenBlock(self.next_index, kind)
        self.open_blocks.append(self.next_index)
        self.next_index += 1
        out.append(
            {"type": "content_block_start", "index": self.current.index, "content_block": block}
        )
        return out

    def _index(self) -> int:
        return self.current.index if self.current is not None else 0

    @staticmethod
    def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": delta}
