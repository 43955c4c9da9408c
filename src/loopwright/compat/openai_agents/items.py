"""``agents.items``."""

from loopwright.compat.openai_agents._impl.items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    TResponseInputItem,
    TResponseOutputItem,
)

__all__ = [
    "HandoffCallItem",
    "HandoffOutputItem",
    "ItemHelpers",
    "MessageOutputItem",
    "ModelResponse",
    "ReasoningItem",
    "RunItem",
    "TResponseInputItem",
    "TResponseOutputItem",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
]
