"""Calls waiting for a person, as the transcript keeps them.

A batch that has calls needing approval ends its run without a tool_result message:
instead the transcript gets a ``pending_approval`` system message that holds the results
of the calls that did run and, for each deferred call, what an approver needs to decide
(tool, input, why, a rule that would allow such calls). Answering records an
``approvals_answered`` system message first, so a crash after it never runs a call twice:
on the next resume the calls are no longer pending, and the usual repair closes them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.messages import SystemMessage, ToolResultBlock, block_from_dict, block_to_dict
from loopwright.stores.entries import Entry

PENDING_SUBTYPE = "pending_approval"
ANSWERED_SUBTYPE = "approvals_answered"


@dataclass(frozen=True, slots=True)
class PendingCall:
    """One call that waits: what it is, why it needs approval, what rule would allow it."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    reason: str
    suggestion: str | None = None
    deferred_at: float = field(default_factory=time.time)
    deadline: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool_use_id": self.tool_use_id,
            "tool_name": self.tool_name,
            "input": self.input,
            "reason": self.reason,
            "suggestion": self.suggestion,
            "deferred_at": self.deferred_at,
            "deadline": self.deadline,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PendingCall:
        deadline = data.get("deadline")
        return cls(
            tool_use_id=str(data["tool_use_id"]),
            tool_name=str(data["tool_name"]),
            input=dict(data.get("input") or {}),
            reason=str(data.get("reason") or ""),
            suggestion=data.get("suggestion"),
            deferred_at=float(data.get("deferred_at") or 0.0),
            deadline=float(deadline) if deadline is not None else None,
        )


@dataclass(frozen=True, slots=True)
class PendingBatch:
    """The tool calls of one assistant message that wait, and the results of the others."""

    assistant_uuid: str
    calls: tuple[PendingCall, ...]
    results: tuple[ToolResultBlock, ...] = ()
    denials: tuple[dict[str, Any], ...] = ()

    @property
    def ids(self) -> list[str]:
        return [call.tool_use_id for call in self.calls]

    def call(self, tool_use_id: str) -> PendingCall | None:
        return next((c for c in self.calls if c.tool_use_id == tool_use_id), None)

    def to_record(self) -> SystemMessage:
        return SystemMessage(
            PENDING_SUBTYPE,
            {
                "assistant_uuid": self.assistant_uuid,
                "pending": [call.to_dict() for call in self.calls],
                "results": [block_to_dict(block) for block in self.results],
                "denials": list(self.denials),
            },
        )

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> PendingBatch:
        results = [block_from_dict(item) for item in data.get("results") or []]
        return cls(
            assistant_uuid=str(data.get("assistant_uuid") or ""),
            calls=tuple(PendingCall.from_dict(item) for item in data.get("pending") or []),
            results=tuple(r for r in results if isinstance(r, ToolResultBlock)),
            denials=tuple(dict(d) for d in data.get("denials") or []),
        )


def answered_record(decisions: dict[str, dict[str, Any]], rules: Sequence[str]) -> SystemMessage:
    """What the approvers answered, written before any approved call runs."""
    return SystemMessage(ANSWERED_SUBTYPE, {"decisions": decisions, "rules": list(rules)})


def _system(entry: Entry, subtype: str) -> dict[str, Any] | None:
    payload = entry.payload
    if entry.kind != "message" or payload.get("type") != "system":
        return None
    if payload.get("subtype") != subtype:
        return None
    data = payload.get("data")
    return data if isinstance(data, dict) else {}


def pending_in_chain(path: Sequence[Entry], last_message_uuid: str | None) -> PendingBatch | None:
    """The batch waiting at the end of the chain: a pending record after the last
    conversation message (its assistant message), not answered since."""
    for entry in reversed(path):
        if _system(entry, ANSWERED_SUBTYPE) is not None:
            return None
        data = _system(entry, PENDING_SUBTYPE)
        if data is not None:
            batch = PendingBatch.from_record(data)
            return batch if batch.assistant_uuid == last_message_uuid else None
        said = entry.kind == "message" and entry.payload.get("type") in ("user", "assistant")
        if said and not entry.payload.get("parent_tool_use_id"):
            return None
    return None


def session_rules_in_chain(path: Sequence[Entry]) -> list[str]:
    """Allow rules approvers chose "always" for: they hold for the rest of the session."""
    rules: list[str] = []
    for entry in path:
        data = _system(entry, ANSWERED_SUBTYPE)
        if data is not None:
            rules.extend(str(rule) for rule in data.get("rules") or [])
    return list(dict.fromkeys(rules))
