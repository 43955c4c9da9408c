"""A session's whole conversation as it happened, for reading (``sessions show``): every
message from the first prompt on, with each compaction marked where it happened — unlike
a resume, which starts from the newest compaction's summary."""

from __future__ import annotations

from collections.abc import Sequence

from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    SystemMessage,
    UserMessage,
    message_from_dict,
)
from loopwright.stores.entries import Entry
from loopwright.stores.transcript import chain

COMPACTION_MARK = "compact_boundary"


def whole_history(entries: Sequence[Entry]) -> list[ConversationMessage | SystemMessage]:
    """User and assistant messages along the session's chain, and a ``compact_boundary``
    SystemMessage (trigger, tokens before and after, the summary) at each compaction."""
    shown: list[ConversationMessage | SystemMessage] = []
    for entry in chain(entries):
        if entry.kind == "compact":
            payload = entry.payload
            data = {
                key: payload.get(key) for key in ("trigger", "pre_tokens", "post_tokens", "summary")
            }
            shown.append(SystemMessage(COMPACTION_MARK, data))
        elif entry.kind == "message":
            try:
                message = message_from_dict(entry.payload)
            except (ValueError, TypeError):
                continue  # an unreadable entry: a reader shows the rest (resume reports it)
            if isinstance(message, AssistantMessage | UserMessage) and (
                message.parent_tool_use_id is None
            ):
                shown.append(message)
    return shown
