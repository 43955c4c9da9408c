"""Make a conversation valid to send again: every tool_use gets exactly one tool_result.

A process killed mid-tool leaves an assistant tool_use with no result; providers refuse
such a history. :func:`repair_pairing` closes each orphaned call with a synthetic
``is_error`` result saying it was interrupted, and drops tool results whose call is not
in the history (a broken chain), so the model sees a coherent story.
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Sequence
from dataclasses import dataclass, field

from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ConversationMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

INTERRUPTED_TEXT = (
    "interrupted: the session stopped before this tool call finished, so its result is "
    "unknown. Check the current state (files, processes) before relying on its effects."
)
_NAMESPACE = uuid_module.UUID("6f1e0c8a-4b8e-4d43-9a38-6c1f4a8f1b21")


@dataclass(frozen=True, slots=True)
class RepairResult:
    messages: list[ConversationMessage]
    # Synthetic result messages that sit after the last original message: the loop appends
    # them to the transcript so the next load needs no repair.
    tail: list[UserMessage] = field(default_factory=list[UserMessage])
    closed_calls: int = 0
    dropped_results: int = 0


def interrupted_result(call: ToolUseBlock) -> ToolResultBlock:
    return ToolResultBlock(call.id, INTERRUPTED_TEXT, is_error=True)


def _synthetic(calls: Sequence[ToolUseBlock]) -> UserMessage:
    # A stable uuid: repairing the same transcript twice gives the same message.
    key = "interrupted:" + ",".join(c.id for c in calls)
    blocks: list[ContentBlock] = [interrupted_result(c) for c in calls]
    return UserMessage(blocks, uuid=str(uuid_module.uuid5(_NAMESPACE, key)))


def _results(message: ConversationMessage) -> list[ToolResultBlock]:
    if not isinstance(message, UserMessage) or isinstance(message.content, str):
        return []
    return [b for b in message.content if isinstance(b, ToolResultBlock)]


def _answer(pending: list[ToolUseBlock], message: UserMessage) -> tuple[UserMessage, int, int]:
    """The user message answering ``pending``: its results in call order, gaps closed."""
    given = {r.tool_use_id: r for r in _results(message)}
    wanted = {c.id for c in pending}
    ordered: list[ContentBlock] = [given.get(c.id) or interrupted_result(c) for c in pending]
    others = [b for b in message.blocks if not isinstance(b, ToolResultBlock)]
    closed = sum(1 for c in pending if c.id not in given)
    dropped = sum(1 for key in given if key not in wanted)
    if not closed and not dropped:
        return message, 0, 0
    repaired = UserMessage([*ordered, *others], message.parent_tool_use_id, message.uuid)
    return repaired, closed, dropped


def _strip_results(message: UserMessage) -> tuple[UserMessage | None, int]:
    """Drop results that answer no call; None if nothing else was in the message."""
    results = _results(message)
    if not results:
        return message, 0
    others: list[ContentBlock] = [b for b in message.blocks if not isinstance(b, ToolResultBlock)]
    kept = UserMessage(others, message.parent_tool_use_id, message.uuid) if others else None
    return kept, len(results)


def repair_pairing(messages: Sequence[ConversationMessage]) -> RepairResult:
    out: list[ConversationMessage] = []
    pending: list[ToolUseBlock] = []
    closed = dropped = 0
    for message in messages:
        if pending:
            if isinstance(message, UserMessage) and _results(message):
                answer, c, d = _answer(pending, message)
                out.append(answer)
                closed, dropped, pending = closed + c, dropped + d, []
                continue
            out.append(_synthetic(pending))
            closed, pending = closed + len(pending), []
        if isinstance(message, UserMessage):
            kept, d = _strip_results(message)
            dropped += d
            if kept is not None:
                out.append(kept)
            continue
        out.append(message)
        if isinstance(message, AssistantMessage):
            pending = message.tool_calls
    tail: list[UserMessage] = []
    if pending:
        tail.append(_synthetic(pending))
        out.extend(tail)
        closed += len(pending)
    return RepairResult(out, tail, closed, dropped)


def check_pairing(messages: Sequence[ConversationMessage]) -> list[str]:
    """Problems with tool_use/tool_result pairing (empty when the history is valid)."""
    problems: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        answered = [r.tool_use_id for r in _results(following)] if following else []
        for call in message.tool_calls:
            count = answered.count(call.id)
            if count != 1:
                problems.append(f"message {index}: tool_use {call.id} has {count} results")
    seen_calls = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    for index, message in enumerate(messages):
        for result in _results(message):
            if result.tool_use_id not in seen_calls:
                problems.append(f"message {index}: result for unknown call {result.tool_use_id}")
    return problems
