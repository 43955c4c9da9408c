"""A subagent's session: a new Agent (narrower tools, its own prompt, perhaps its own model
and a stricter mode) with a child Spend, on the parent's working directory and services."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from loopwright.models.settings import ModelSettings
from loopwright.options import AgentDefinition
from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.modes import subagent_modes
from loopwright.session.agent import Agent
from loopwright.session.resolve import resolve_model, with_retries
from loopwright.session.session import Session, meter_for
from loopwright.session.spend import require_price_for_budget
from loopwright.subagents.tool import narrow_tools
from loopwright.tools.base import SessionState, Tool

if TYPE_CHECKING:
    from loopwright.tools.tool_search import DeferredToolRegistry

SUBAGENT_SYSTEM_SUFFIX = (
    "\n\nYou are running as a subagent. Your final message is returned to the agent that "
    "started you; make it a complete, self-contained report."
)


def child_session(
    parent: Session, name: str, definition: AgentDefinition, tool_use_id: str
) -> Session:
    agent = _child_agent(parent, name, definition, tool_use_id)
    return Session(
        agent=agent,
        session_id=parent.session_id,
        state=SessionState(cwd=parent.state.cwd, resources=parent.state.resources),
        spend=parent.spend.child(),
        services=dataclasses.replace(parent.services, run_subagent=None),  # no nesting
        meter=meter_for(agent),  # the subagent's own model decides its window
        parent=parent,
        checkpoints=parent.checkpoints,
    )


def _child_agent(
    parent: Session, name: str, definition: AgentDefinition, tool_use_id: str
) -> Agent:
    own = parent.agent
    tools, deferred = _child_tools(own, definition)
    model = own.model
    budget = own.options.max_budget_usd
    if definition.model not in (None, "inherit"):
        model = with_retries(resolve_model(definition.model), own.options)
        require_price_for_budget(budget, own.options.task_budget, model.name)
    spent = parent.spend.run.cost_usd
    if budget is not None and spent is not None:
        budget = max(0.0, budget - spent)  # what the parent has left, not a fresh budget
    options = dataclasses.replace(
        own.options,
        max_budget_usd=budget,
        max_turns=definition.max_turns,
        effort=definition.effort or own.options.effort,
        model_settings=_settings_for(own.options.model_settings, definition.model_settings),
        output_format=None,
    )
    hook_fields = {"agent_id": tool_use_id, "agent_type": name}
    gate = own.gate
    if own.gate_factory is not None:
        # The stricter of the parent's and the definition's mode, in every respect
        # (plan under dontAsk neither asks nor edits): see permissions/modes.py.
        parent_gate = own.gate
        inherited = parent_gate.policy.also_modes if isinstance(parent_gate, PermissionGate) else ()
        mode, also = subagent_modes((own.permission_mode, *inherited), definition.permission_mode)
        gate = own.gate_factory(mode, hook_fields)
        if isinstance(gate, PermissionGate):  # a gate of our own policy: it also checks these
            gate.policy.also_modes = also
    return dataclasses.replace(
        own,
        options=options,
        model=model,
        tools=tools,
        system_prompt=definition.prompt + SUBAGENT_SYSTEM_SUFFIX,
        gate=gate,
        hook_fields=hook_fields,
        parent_tool_use_id=tool_use_id,
        output_format=None,
        deferred=deferred,
        mcp_status=(),
        agent_names=(),
        skill_names=(),
    )


def _child_tools(
    own: Agent, definition: AgentDefinition
) -> tuple[dict[str, Tool], DeferredToolRegistry | None]:
    # The parent's final-answer tool and its ToolSearch (bound to the parent's registry)
    # are the parent's own; a subagent with deferred tools gets a registry of its own.
    # (start-up: imported here, as a subagent starts)
    from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME
    from loopwright.tools.tool_search import TOOL_SEARCH_NAME, DeferredToolRegistry

    reserved = {STRUCTURED_OUTPUT_TOOL_NAME, TOOL_SEARCH_NAME}
    active = own.active_tools()
    names = narrow_tools([n for n in active if n not in reserved], definition)
    tools = {name: active[name] for name in names}
    if own.deferred is None:
        return tools, None
    allowed = set(narrow_tools([t.name for t in own.deferred.deferred], definition))
    deferred = DeferredToolRegistry([t for t in own.deferred.deferred if t.name in allowed])
    if deferred.deferred:
        tools[TOOL_SEARCH_NAME] = deferred.tool()
    return tools, deferred


def _settings_for(parent: ModelSettings | None, own: ModelSettings | None) -> ModelSettings | None:
    """The agent's own model settings over the parent's."""
    if parent is None:
        return own
    return parent.merged(own)
