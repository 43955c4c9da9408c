"""The run's answers to calls that waited for approval (from ``RunState.approve`` /
``reject``): which may run now, and the message a rejected one gives the model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopwright.compat.openai_agents._impl.context import RunContextWrapper
from loopwright.compat.openai_agents._impl.output import format_rejection
from loopwright.messages import ToolUseBlock


@dataclass
class Decision:
    approved: bool
    message: str | None = None


@dataclass(slots=True)
class Approvals:
    """Decisions by call id, and the "always" answers by tool name."""

    context: RunContextWrapper[Any]
    # RunConfig.tool_error_formatter: words a rejection for the model, when set.
    formatter: Any = None
    decisions: dict[str, Decision] = field(default_factory=dict[str, Decision])
    always: dict[str, bool] = field(default_factory=dict[str, bool])

    def answered(self, tool_name: str, call_id: str | None) -> bool:
        """Whether this call has an answer already (it does not wait again)."""
        return tool_name in self.always or call_id in self.decisions

    async def approval(self, agent: Any, call: ToolUseBlock, name: str) -> str | None:
        """The decision on ``call`` (it waited, and was answered): the rejection message,
        or None when it may run."""
        if name in self.always:
            return None if self.always[name] else await self._rejection(name, None)
        decision = self.decisions.pop(call.id, None)
        if decision is None:  # the native gate let it through: approved there
            return None
        return None if decision.approved else await self._rejection(name, decision.message)

    async def _rejection(self, name: str, message: str | None) -> str:
        if message is not None:
            return message
        if self.formatter is not None:
            formatted = await format_rejection(self.formatter, name, self.context)
            if formatted is not None:
                return formatted
        return f"Tool execution was not approved: the call to {name} was rejected."
