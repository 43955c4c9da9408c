"""Handoffs of the OpenAI Agents SDK layer, on loopwright's native handoffs."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter

from loopwright.subagents.handoffs import default_tool_name


@dataclass(frozen=True)
class HandoffInputData:
    """What an input filter sees and returns: the run's input history, the items of this run
    before the handoff turn, and the items of the handoff turn itself."""

    input_history: str | tuple[Any, ...]
    pre_handoff_items: tuple[Any, ...]
    new_items: tuple[Any, ...]
    run_context: Any = None

    def clone(self, **changes: Any) -> HandoffInputData:
        return dataclasses.replace(self, **changes)


@dataclass
class Handoff:
    """A handoff to ``agent`` offered to the model as the tool ``tool_name``."""

    tool_name: str
    tool_description: str
    input_json_schema: dict[str, Any]
    agent_name: str
    agent: Any = None
    on_handoff: Callable[..., Any] | None = None
    input_type: Any = None
    input_filter: Callable[[HandoffInputData], Any] | None = None
    strict_json_schema: bool = True
    is_enabled: bool | Callable[..., Any] = True
    extras: dict[str, Any] = field(default_factory=dict[str, Any])

    async def run_callback(self, context: Any, arguments: dict[str, Any]) -> None:
        if self.on_handoff is None:
            return
        if self.input_type is not None:
            value = TypeAdapter(self.input_type).validate_json(json.dumps(arguments))
            produced = self.on_handoff(context, value)
        else:
            produced = self.on_handoff(context)
        if inspect.isawaitable(produced):
            await produced


_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def handoff(
    agent: Any,
    tool_name_override: str | None = None,
    tool_description_override: str | None = None,
    on_handoff: Callable[..., Any] | None = None,
    input_type: Any = None,
    input_filter: Callable[[HandoffInputData], Any] | None = None,
    nest_handoff_history: bool | None = None,
    is_enabled: bool | Callable[..., Any] = True,
) -> Handoff:
    schema = _EMPTY_SCHEMA
    if input_type is not None:
        schema = TypeAdapter(input_type).json_schema()
    description = (
        tool_description_override
        or (
            f"Handoff to the {agent.name} agent to handle the request. "
            f"{agent.handoff_description or ''}"
        ).strip()
    )
    return Handoff(
        tool_name=tool_name_override or default_tool_name(agent.name),
        tool_description=description,
        input_json_schema=schema,
        agent_name=agent.name,
        agent=agent,
        on_handoff=on_handoff,
        input_type=input_type,
        input_filter=input_filter,
        is_enabled=is_enabled,
    )


def as_handoff(item: Any) -> Handoff:
    """An Agent in ``handoffs=[...]`` is a handoff with the defaults."""
    return item if isinstance(item, Handoff) else handoff(item)


# --------------------------------------------------------------------------- filters

_TOOL_ITEM_TYPES = {"function_call", "function_call_output", "computer_call", "file_search_call"}
_TOOL_RUN_ITEM_TYPES = {
    "tool_call_item",
    "tool_call_output_item",
    "handoff_call_item",
    "handoff_output_item",
}


def remove_all_tools(data: HandoffInputData) -> HandoffInputData:
    """The same data without tool calls, tool outputs and handoff items."""
    history = data.input_history
    if not isinstance(history, str):
        history = tuple(i for i in history if i.get("type") not in _TOOL_ITEM_TYPES)
    return data.clone(
        input_history=history,
        pre_handoff_items=tuple(
            i for i in data.pre_handoff_items if i.type not in _TOOL_RUN_ITEM_TYPES
        ),
        new_items=tuple(i for i in data.new_items if i.type not in _TOOL_RUN_ITEM_TYPES),
    )


# Written for loopwright: tells a model that it is one of several cooperating agents.
RECOMMENDED_PROMPT_PREFIX = (
    "# System context\n"
    "You are one agent in a team of agents that pass a conversation between them. Moving the "
    "conversation to another agent is done by calling a handoff function, whose name starts "
    "with `transfer_to_`. Hand over when another agent is better placed to help; do not mention "
    "or draw attention to these transfers when talking to the user.\n"
)
