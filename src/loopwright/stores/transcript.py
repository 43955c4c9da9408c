"""Turn stored entries back into a session: the conversation, its state and its totals.

:func:`restore` follows the ``parent_uuid`` chain back from the newest entry (or from
``resume_at``), so a branch written after an older message replaces what came after that
message without anything being rewritten. A ``compact`` entry on the chain stands for all
history before it. Usage that assistant messages reported after the last ``state`` snapshot
(a crash before turn end) is added to the snapshot's totals, so cost is never lost.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.cost import add_costs, cost_of
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Usage,
    UserMessage,
    message_from_dict,
)
from loopwright.stores.approvals import PendingBatch, pending_in_chain, session_rules_in_chain
from loopwright.stores.base import SessionError
from loopwright.stores.entries import Entry
from loopwright.stores.repair import RepairResult, repair_pairing
from loopwright.tools.base import FileRecord, SessionState


@dataclass(frozen=True, slots=True)
class StateSnapshot:
    """Session state written at turn end: what resume needs besides the messages."""

    todos: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    read_files: dict[str, FileRecord] = field(default_factory=dict[str, FileRecord])
    usage: Usage = field(default_factory=Usage)
    total_cost_usd: float | None = 0.0
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    num_turns: int = 0

    @classmethod
    def capture(
        cls,
        state: SessionState,
        *,
        usage: Usage,
        total_cost_usd: float | None,
        model_usage: dict[str, dict[str, Any]],
        num_turns: int,
    ) -> StateSnapshot:
        """A snapshot of the tools' shared state and the running totals (copied, not shared)."""
        return cls(
            todos=[dict(todo) for todo in state.todos],
            read_files={
                path: FileRecord(r.mtime_ns, r.size, r.partial)
                for path, r in state.read_files.items()
            },
            usage=usage,
            total_cost_usd=total_cost_usd,
            model_usage={name: dict(values) for name, values in model_usage.items()},
            num_turns=num_turns,
        )

    def apply_to(self, state: SessionState) -> None:
        """Put the restored todos and read-file records back into a live session state."""
        state.todos = [dict(todo) for todo in self.todos]
        state.read_files = {
            path: FileRecord(r.mtime_ns, r.size, r.partial) for path, r in self.read_files.items()
        }

    def to_payload(self) -> dict[str, Any]:
        return {
            "todos": self.todos,
            "read_files": {
                path: {"mtime_ns": r.mtime_ns, "size": r.size, "partial": r.partial}
                for path, r in self.read_files.items()
            },
            "usage": self.usage.to_dict(),
            "total_cost_usd": self.total_cost_usd,
            "model_usage": self.model_usage,
            "num_turns": self.num_turns,
        }

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> StateSnapshot:
        files = payload.get("read_files") or {}
        return cls(
            todos=list(payload.get("todos") or []),
            read_files={
                path: FileRecord(int(r["mtime_ns"]), int(r["size"]), bool(r.get("partial")))
                for path, r in files.items()
            },
            usage=Usage.from_dict(payload.get("usage") or {}),
            total_cost_usd=payload.get("total_cost_usd"),
            model_usage=dict(payload.get("model_usage") or {}),
            num_turns=int(payload.get("num_turns") or 0),
        )


@dataclass(frozen=True, slots=True)
class RestoredSession:
    session_id: str
    messages: list[ConversationMessage]
    state: StateSnapshot
    # The uuid the next appended entry must name as its parent.
    last_uuid: str | None
    # Synthetic "interrupted" results at the end of ``messages``, not yet in the store.
    repairs: list[UserMessage] = field(default_factory=list[UserMessage])
    meta: dict[str, Any] = field(default_factory=dict[str, Any])
    warnings: list[str] = field(default_factory=list[str])
    compactions: int = 0
    # Tool calls of the last assistant message that wait for approval (not repaired).
    pending: PendingBatch | None = None
    # Allow rules approvers chose "always" for, in earlier runs of this session.
    session_rules: list[str] = field(default_factory=list[str])

    @property
    def todos(self) -> list[dict[str, Any]]:
        return self.state.todos

    @property
    def read_files(self) -> dict[str, FileRecord]:
        return self.state.read_files

    @property
    def usage(self) -> Usage:
        return self.state.usage

    @property
    def total_cost_usd(self) -> float | None:
        return self.state.total_cost_usd

    @property
    def num_turns(self) -> int:
        return self.state.num_turns


def chain(entries: Sequence[Entry], resume_at: str | None = None) -> list[Entry]:
    """The message/state/compact entries from the root to the leaf (or ``resume_at``).

    A uuid can occur more than once: a retried append writes the same entry again, and a
    message object sent twice (the same ``UserMessage`` passed to two queries) is recorded
    twice with different parents. Each parent link therefore resolves to the newest entry
    with that uuid *before* the child, which follows every branch exactly as it was written
    and can never loop.
    """
    positions: dict[str, list[int]] = {}
    leaf: int | None = None
    for index, entry in enumerate(entries):
        if entry.kind != "meta":
            positions.setdefault(entry.uuid, []).append(index)
            leaf = index
    if resume_at is not None:
        found = positions.get(resume_at)
        if not found:
            raise SessionError(
                f"resume_at={resume_at!r} is not a message of this session; pass the uuid of "
                "one of its messages (see get_session_messages)"
            )
        leaf = found[-1]
    path: list[Entry] = []
    while leaf is not None:
        entry = entries[leaf]
        path.append(entry)
        parent = entry.parent_uuid
        leaf = _newest_before(positions.get(parent, []), leaf) if parent is not None else None
    path.reverse()
    return path


def _newest_before(positions: list[int], limit: int) -> int | None:
    index = bisect.bisect_left(positions, limit) - 1
    return positions[index] if index >= 0 else None


class _Totals:
    """Usage and cost reported after the last snapshot (lost if only snapshots counted)."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.cost: float | None = 0.0
        self.turns = 0
        self.model_usage: dict[str, dict[str, Any]] = {}

    def add(self, model: str, usage: Usage, tool_turn: bool) -> None:
        self.usage = self.usage + usage
        cost = cost_of(model, usage)
        self.cost = add_costs(self.cost, cost)
        self.turns += int(tool_turn)
        bucket = self.model_usage.setdefault(model, {"cost_usd": 0.0})
        # Field by field, not usage.to_dict(): this runs once per message of a resume.
        for key, value in (
            ("input_tokens", usage.input_tokens),
            ("output_tokens", usage.output_tokens),
            ("cache_read_input_tokens", usage.cache_read_input_tokens),
            ("cache_creation_input_tokens", usage.cache_creation_input_tokens),
        ):
            bucket[key] = int(bucket.get(key, 0)) + value
        previous = bucket.get("cost_usd")
        bucket["cost_usd"] = add_costs(previous, cost)

    def onto(self, base: StateSnapshot) -> StateSnapshot:
        if self.usage == Usage() and not self.turns:
            return base
        merged = {name: dict(values) for name, values in base.model_usage.items()}
        for name, extra in self.model_usage.items():
            bucket = merged.setdefault(name, {"cost_usd": 0.0})
            for key, value in extra.items():
                if key == "cost_usd":
                    old = bucket.get("cost_usd", 0.0)
                    bucket[key] = add_costs(old, value)
                else:
                    bucket[key] = int(bucket.get(key, 0)) + int(value)
        cost = base.total_cost_usd
        return StateSnapshot(
            base.todos,
            base.read_files,
            base.usage + self.usage,
            None if cost is None or self.cost is None else cost + self.cost,
            merged,
            base.num_turns + self.turns,
        )


def restore(
    entries: Sequence[Entry], *, resume_at: str | None = None, session_id: str | None = None
) -> RestoredSession:
    """The session as of its newest entry (or ``resume_at``), ready to continue."""
    meta: dict[str, Any] = {}
    warnings: list[str] = []
    for entry in entries:
        if entry.kind == "meta":
            if "load_warning" in entry.payload:
                warnings.append(str(entry.payload["load_warning"]))
            else:
                meta.update(entry.payload)
    path = chain(entries, resume_at)
    conversation: list[ConversationMessage] = []
    snapshot = StateSnapshot()
    since_snapshot = _Totals()
    compact_at = [index for index, entry in enumerate(path) if entry.kind == "compact"]
    last_compact = compact_at[-1] if compact_at else -1
    for index, entry in enumerate(path):
        if entry.kind == "state":
            snapshot, since_snapshot = StateSnapshot.from_payload(entry.payload), _Totals()
        elif entry.kind == "compact":
            if index == last_compact:
                conversation = _compacted_messages(entry)
            usage = entry.payload.get("usage")
            if isinstance(usage, dict):
                model = str(entry.payload.get("model") or "")
                since_snapshot.add(model, Usage.from_dict(usage), False)
        else:
            _count_usage(entry.payload, since_snapshot)
            if index > last_compact:  # earlier messages are replaced by the compaction
                _add_message(entry, conversation)
    last = conversation[-1] if conversation else None
    pending = pending_in_chain(path, last.uuid if last is not None else None)
    if pending is not None and last is not None:  # the waiting calls are not orphans
        repaired = repair_pairing(conversation[:-1])
        repaired = RepairResult([*repaired.messages, last], repaired.tail)
    else:
        repaired = repair_pairing(conversation)
    sid = session_id or (entries[0].session_id if entries else "")
    return RestoredSession(
        session_id=sid,
        messages=repaired.messages,
        state=since_snapshot.onto(snapshot),
        last_uuid=path[-1].uuid if path else None,
        repairs=repaired.tail,
        meta=meta,
        warnings=warnings,
        compactions=len(compact_at),
        pending=pending,
        session_rules=session_rules_in_chain(path),
    )


def _compacted_messages(entry: Entry) -> list[ConversationMessage]:
    out: list[ConversationMessage] = []
    for data in entry.payload.get("messages") or []:
        message = message_from_dict(data)
        if isinstance(message, AssistantMessage | UserMessage):
            out.append(message)
    return out


def _count_usage(payload: dict[str, Any], totals: _Totals) -> None:
    """Add an assistant message's usage straight from its payload (no full decode)."""
    if payload.get("type") != "assistant":
        return
    usage = payload.get("usage")
    content = payload.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    # Turns are the session's own: a subagent's tool calls are its turns, not the parent's
    # (the loop's num_turns counts them the same way).
    tool_turn = not payload.get("parent_tool_use_id") and any(
        isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks
    )
    model = str(payload.get("model") or "")
    totals.add(model, Usage.from_dict(usage) if isinstance(usage, dict) else Usage(), tool_turn)


def _add_message(entry: Entry, conversation: list[ConversationMessage]) -> None:
    try:
        message = message_from_dict(entry.payload)
    except (ValueError, TypeError) as exc:
        raise SessionError(
            f"entry {entry.uuid} of session {entry.session_id} holds an unreadable message "
            f"({exc}); resume_at an earlier message to skip it"
        ) from exc
    if not isinstance(message, AssistantMessage | UserMessage):
        return  # system, result and stream messages are records, not conversation
    if message.parent_tool_use_id is None:  # subagent messages stay out of the parent's context
        conversation.append(message)
