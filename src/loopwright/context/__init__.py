"""Context accounting (tokens per request, windows per model) and compaction."""

from loopwright.context.compaction import (
    CompactionBreaker,
    CompactionError,
    CompactionResult,
    CompactionSettings,
    compact,
    should_compact,
    summarise,
)
from loopwright.context.history import clear_old_tool_results, first_prompt_index
from loopwright.context.tokens import (
    ContextCount,
    ContextMeter,
    context_window,
    estimate_message_tokens,
    estimate_tokens,
    register_context_window,
)

__all__ = [
    "CompactionBreaker",
    "CompactionError",
    "CompactionResult",
    "CompactionSettings",
    "ContextCount",
    "ContextMeter",
    "clear_old_tool_results",
    "compact",
    "context_window",
    "estimate_message_tokens",
    "estimate_tokens",
    "first_prompt_index",
    "register_context_window",
    "should_compact",
    "summarise",
]
