"""Messages as the SDKs' parsers and their users' code expect them, line by line.

On top of :class:`StreamJsonWriter`'s Claude Code shape: content blocks in Anthropic's
wire form, no echo of the prompt, ``claude_code_version`` and the slash-command fields in
``init``, raw Anthropic ``stream_event``s, and the result in the SDKs' terms — subtypes
they know, ``num_turns`` counting model responses, ``modelUsage`` in camelCase.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopwright.cli.host.events import AnthropicEvents
from loopwright.cli.host.versions import CLAUDE_CODE_PROTOCOL_VERSION, loopwright_version
from loopwright.cli.stream_json import StreamJsonWriter
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
)

_KNOWN_SUBTYPES = {
    "success",
    "error_max_turns",
    "error_during_execution",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
}


@dataclass(slots=True)
class TurnState:
    """One turn (one user message) as the SDKs count it."""

    max_turns: int | None = None
    responses: int = 0  # main-thread model responses: the SDKs' num_turns
    tools_pending: bool = False
    max_turns_hit: bool = False
    last_error: bool = False


@dataclass(slots=True)
class SdkShaper:
    replay_user_messages: bool = False
    writer: StreamJsonWriter = field(default_factory=StreamJsonWriter)
    streams: dict[str | None, AnthropicEvents] = field(
        default_factory=dict[str | None, AnthropicEvents]
    )
    model: str = ""

    def lines(self, message: Message, turn: TurnState) -> list[dict[str, Any]]:
        match message:
            case SystemMessage(subtype="init"):
                return [self._init(message)]
            case StreamEvent():
                return self._stream_events(message)
            case AssistantMessage():
                if message.parent_tool_use_id is None:
                    turn.responses += 1
                    turn.tools_pending = bool(message.tool_calls)
                return [*self._close_stream(message), self._assistant(message)]
            case UserMessage():
                return self._user(message, turn)
            case ResultMessage():
                return [self._result(message, turn)]
            case SystemMessage():
                return [self.writer.shape(message)]

    def _init(self, message: SystemMessage) -> dict[str, Any]:
        shaped = self.writer.shape(message)
        self.model = str(shaped.get("model") or "")
        shaped.update(
            claude_code_version=CLAUDE_CODE_PROTOCOL_VERSION,
            loopwright_version=loopwright_version(),
            apiKeySource="none",
            slash_commands=[],
            output_style="default",
            plugins=[],
        )
        shaped["mcp_servers"] = [
            {"name": s.get("name"), "status": s.get("status")}
            for s in shaped.get("mcp_servers", [])
        ]
        return shaped

    def _stream_events(self, message: StreamEvent) -> list[dict[str, Any]]:
        stream = self.streams.setdefault(message.parent_tool_use_id, AnthropicEvents(self.model))
        return [
            self._event_line(event, message.parent_tool_use_id)
            for event in stream.feed(message.event)
        ]

    def _close_stream(self, message: AssistantMessage) -> list[dict[str, Any]]:
        stream = self.streams.get(message.parent_tool_use_id)
        if stream is None:
            return []
        stream.model = message.model or stream.model
        return [
            self._event_line(event, message.parent_tool_use_id) for event in stream.finish(message)
        ]

    def _event_line(self, event: dict[str, Any], parent: str | None) -> dict[str, Any]:
        from loopwright.messages import new_uuid

        return {
            "type": "stream_event",
            "uuid": new_uuid(),
            "session_id": self.writer.session_id,
            "event": event,
            "parent_tool_use_id": parent,
        }

    def _assistant(self, message: AssistantMessage) -> dict[str, Any]:
        shaped = self.writer.shape(message)
        body = shaped["message"]
        body["id"] = body.get("id") or f"msg_{message.uuid.replace('-', '')[:24]}"
        body["content"] = [b for b in (sdk_block(x) for x in body["content"]) if b is not None]
        return shaped

    def _user(self, message: UserMessage, turn: TurnState) -> list[dict[str, Any]]:
        results = [b for b in message.blocks if isinstance(b, ToolResultBlock)]
        if not results and message.parent_tool_use_id is None and not self.replay_user_messages:
            return []  # the prompt (or a continue nudge): Claude Code does not echo it
        if results and message.parent_tool_use_id is None:
            turn.tools_pending = False
        shaped = self.writer.shape(message)
        content = shaped["message"]["content"]
        if isinstance(content, list):
            shaped["message"]["content"] = [b for b in (sdk_block(x) for x in content) if b]
        return [shaped]

    def _result(self, message: ResultMessage, turn: TurnState) -> dict[str, Any]:
        data = self.writer.shape(message)
        subtype = message.subtype
        terminal: str | None = None
        if turn.max_turns_hit and subtype in ("interrupted", "error_max_turns"):
            subtype = "error_max_turns"
            data["errors"] = [f"Reached maximum number of turns ({turn.max_turns})"]
        elif subtype == "interrupted":
            subtype = "error_during_execution"
            terminal = "aborted_tools" if turn.tools_pending else "aborted_streaming"
        elif subtype not in _KNOWN_SUBTYPES:
            data["errors"] = [subtype, *message.errors]
            subtype = "error_during_execution"
        num_turns = turn.responses + (1 if subtype == "error_max_turns" else 0)
        data.update(
            subtype=subtype,
            num_turns=num_turns,
            total_cost_usd=message.total_cost_usd or 0.0,
            modelUsage=model_usage(message.model_usage),
        )
        data.pop("model_usage", None)
        if terminal is not None:
            data["terminal_reason"] = terminal
        if message.is_error:
            data.pop("result", None)
        turn.last_error = message.is_error
        return data


def model_usage(per_model: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """loopwright's per-model usage in the camelCase the SDKs report (``modelUsage``)."""
    return {
        model: {
            "inputTokens": entry.get("input_tokens", 0),
            "outputTokens": entry.get("output_tokens", 0),
            "cacheReadInputTokens": entry.get("cache_read_input_tokens", 0),
            "cacheCreationInputTokens": entry.get("cache_creation_input_tokens", 0),
            "webSearchRequests": 0,
            "costUSD": entry.get("cost_usd") or 0.0,
        }
        for model, entry in per_model.items()
    }


def sdk_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """One content block in the Anthropic wire form the SDK parsers read."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind == "thinking":
        return {
            "type": "thinking",
            "thinking": block["thinking"],
            "signature": block.get("signature") or "",
        }
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": block["id"],
            "name": block["name"],
            "input": block["input"],
        }
    if kind == "image":
        source = {
            "type": "base64",
            "media_type": block.get("media_type"),
            "data": block.get("data"),
        }
        return {"type": "image", "source": source}
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            content = [b for b in (sdk_block(x) for x in content) if b is not None]
        return {
            "type": "tool_result",
            "tool_use_id": block["tool_use_id"],
            "content": content,
            "is_error": bool(block.get("is_error")),
        }
    if kind == "server_tool":
        wire = block.get("provider_data")
        if isinstance(wire, dict) and isinstance(wire.get("type"), str):
            return dict(wire)  # the provider's own block (server_tool_use, web_search_tool_result…)
        if block.get("kind") == "use":
            return {
                "type": "server_tool_use",
                "id": block["id"],
                "name": block["name"],
                "input": block.get("input", {}),
            }
    return None
