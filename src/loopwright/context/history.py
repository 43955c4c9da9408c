"""Where a history can be cut, and stage 1 of compaction: clearing old tool results.

A cut never separates a tool_use from its tool_result: the history before a cut point
answers every call it makes. Turns are counted by assistant messages (one model response
plus the results of its tool calls).
"""

from __future__ import annotations

from collections.abc import Sequence

from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ConversationMessage,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)

CLEARED_TEMPLATE = "[tool result cleared to save context: {chars} chars]"


def is_prompt(message: ConversationMessage) -> bool:
    """A user message that is a prompt, not tool results.

    ``parent_tool_use_id`` does not matter: a history holds one agent's messages, and in a
    subagent's own history every message, its task included, carries the Agent call's id.
    """
    if not isinstance(message, UserMessage):
        return False
    return not any(isinstance(b, ToolResultBlock) for b in message.blocks)


def first_prompt_index(messages: Sequence[ConversationMessage]) -> int | None:
    """The task statement: the first prompt of the history."""
    for index, message in enumerate(messages):
        if is_prompt(message):
            return index
    return None


def safe_cut_points(messages: Sequence[ConversationMessage]) -> list[bool]:
    """``result[i]`` is True when cutting before message ``i`` splits no call from its result."""
    open_calls: set[str] = set()
    safe: list[bool] = []
    for message in messages:
        safe.append(not open_calls)
        if isinstance(message, AssistantMessage):
            open_calls.update(call.id for call in message.tool_calls)
        elif isinstance(message, UserMessage) and not isinstance(message.content, str):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    open_calls.discard(block.tool_use_id)
    safe.append(not open_calls)
    return safe


def recent_cut(messages: Sequence[ConversationMessage], keep_recent_turns: int) -> int:
    """The index where the last ``keep_recent_turns`` turns begin, moved to a safe point.

    With 0 turns kept, the cut is at the end of the history.
    """
    safe = safe_cut_points(messages)
    cut = len(messages)
    remaining = keep_recent_turns
    while remaining > 0 and cut > 0:
        cut -= 1
        if isinstance(messages[cut], AssistantMessage):
            remaining -= 1
    while cut > 0 and not safe[cut]:
        cut -= 1
    return cut


def _cleared(block: ContentBlock, min_chars: int) -> tuple[ContentBlock, int]:
    if not isinstance(block, ToolResultBlock):
        return block, 0
    size = len(block.text) if isinstance(block.content, str) else _content_chars(block)
    if size < min_chars:
        return block, 0
    stub = CLEARED_TEMPLATE.format(chars=size)
    return ToolResultBlock(block.tool_use_id, stub, block.is_error), size - len(stub)


def _content_chars(block: ToolResultBlock) -> int:
    # Images count as large: clearing them saves the most.
    if isinstance(block.content, str):
        return len(block.content)
    return sum((len(b.text) if isinstance(b, TextBlock) else 0) or 6000 for b in block.content)


def clear_old_tool_results(
    messages: Sequence[ConversationMessage],
    keep_recent_turns: int = 3,
    min_chars: int = 2000,
) -> list[ConversationMessage]:
    """Stage 1: replace large tool results older than the recent turns with short stubs.

    Every tool_use keeps its (stubbed) result, and each message keeps its uuid, so the
    history stays valid and resumable. Returns the same list contents when nothing was big.
    """
    cut = recent_cut(messages, keep_recent_turns)
    out: list[ConversationMessage] = []
    for index, message in enumerate(messages):
        if index >= cut or not isinstance(message, UserMessage):
            out.append(message)
            continue
        if isinstance(message.content, str):
            out.append(message)
            continue
        blocks: list[ContentBlock] = []
        saved = 0
        for block in message.content:
            new_block, gain = _cleared(block, min_chars)
            blocks.append(new_block)
            saved += gain
        if saved <= 0:
            out.append(message)
        else:
            out.append(UserMessage(blocks, message.parent_tool_use_id, message.uuid))
    return out
