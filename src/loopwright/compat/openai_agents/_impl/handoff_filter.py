"""A handoff ``input_filter`` of the OpenAI Agents layer as a native history filter.

The native history is shown to the filter as that SDK's ``HandoffInputData``: the input
history (the run's input items), the items this run produced before the handoff turn, and
the items of the handoff turn; what the filter returns becomes the history again.
"""

from __future__ import annotations

import inspect
from typing import Any

from loopwright.compat.openai_agents._impl.context import RunContextWrapper
from loopwright.compat.openai_agents._impl.handoffs import HandoffInputData
from loopwright.compat.openai_agents._impl.input import to_conversation
from loopwright.compat.openai_agents._impl.items import message_items
from loopwright.compat.openai_agents._impl.ports import PriorHistory
from loopwright.messages import ConversationMessage


def history_filter(run: PriorHistory, context: RunContextWrapper[Any], input_filter: Any) -> Any:
    """A native handoff input filter that shows ``input_filter`` the history as that SDK
    splits it: the run's input, the items before the handoff turn, and that turn."""

    async def rewrite(history: list[ConversationMessage]) -> list[ConversationMessage]:
        start = len(run.prior) + 1  # the earlier conversation and this run's prompt
        handoff_turn = max(start, len(history) - 2)
        input_history = tuple(i for m in history[:start] for i in message_items(m))
        before = [i for m in history[start:handoff_turn] for i in message_items(m)]
        turn = [i for m in history[handoff_turn:] for i in message_items(m)]
        data = HandoffInputData(
            input_history=input_history,
            pre_handoff_items=tuple(_Item(i) for i in before),
            new_items=tuple(_Item(i) for i in turn),
            run_context=context,
        )
        produced = input_filter(data)
        filtered = await produced if inspect.isawaitable(produced) else produced
        kept = (
            list(filtered.input_history)
            if not isinstance(filtered.input_history, str)
            else [{"role": "user", "content": filtered.input_history}]
        )
        kept += [i.to_input_item() for i in (*filtered.pre_handoff_items, *filtered.new_items)]
        return to_conversation(kept).messages

    return rewrite


class _Item:
    """A run item seen by a handoff filter: its ``type`` and the input item it stands for."""

    _TYPES = {
        "function_call": "tool_call_item",
        "function_call_output": "tool_call_output_item",
        "message": "message_output_item",
        "reasoning": "reasoning_item",
    }

    def __init__(self, item: dict[str, Any]) -> None:
        self.raw_item = item
        self.type = self._TYPES.get(str(item.get("type")), "message_output_item")
        self.agent = None

    def to_input_item(self) -> dict[str, Any]:
        return dict(self.raw_item)
