"""``--output-format stream-json`` in the shape of ``claude -p --output-format stream-json``.

Scripts written for Claude Code read ``session_id`` on every line, the model's turn under
``message`` (``{"role", "content", ...}``) and the ``init`` fields at the top level. The
message's own fields stay available where Claude Code has no name for them (``uuid``).
"""

from __future__ import annotations

from typing import Any

from loopwright.cli.plain_output import dict_to_json_line
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)


class StreamJsonWriter:
    """Turns each message into one Claude Code-shaped JSON line (remembers the session id)."""

    def __init__(self) -> None:
        self.session_id: str | None = None

    def line(self, message: Message) -> str:
        return dict_to_json_line(self.shape(message))

    def shape(self, message: Message) -> dict[str, Any]:
        data: dict[str, Any] = message.to_dict()
        match message:
            case SystemMessage(subtype=subtype, data=fields):
                if subtype == "init":
                    self.session_id = fields.get("session_id", self.session_id)
                shaped = {"type": "system", "subtype": subtype, **fields}
                if "permission_mode" in fields:
                    shaped["permissionMode"] = fields["permission_mode"]
                shaped.update(uuid=data.get("uuid"), session_id=self.session_id)
                return shaped
            case AssistantMessage():
                return self._wrapped(data, _assistant_body(data))
            case UserMessage():
                return self._wrapped(data, {"role": "user", "content": data["content"]})
            case ResultMessage(session_id=session_id):
                self.session_id = session_id or self.session_id
                return data
            case StreamEvent():
                return {**data, "session_id": data.get("session_id") or self.session_id}

    def _wrapped(self, data: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": data["type"],
            "message": body,
            "parent_tool_use_id": data.get("parent_tool_use_id"),
            "session_id": self.session_id,
            "uuid": data.get("uuid"),
        }


def _assistant_body(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": data.get("message_id"),
        "type": "message",
        "role": "assistant",
        "model": data.get("model"),
        "content": data["content"],
        "stop_reason": data.get("stop_reason"),
        "stop_sequence": None,
        "usage": data.get("usage"),
    }
