"""Handoffs in the loop: a handoff tool's switch, applied once its batch is answered —
a new Agent that talks on the same Conversation."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from loopwright.messages import SystemMessage
from loopwright.session.agent import Agent
from loopwright.session.resolve import resolve_model, resolve_tools, with_retries
from loopwright.session.session import Session
from loopwright.tools.base import LoopRequest
from loopwright.tools.results import SwitchAgent

if TYPE_CHECKING:
    from loopwright.subagents.handoffs import PendingHandoff


async def apply_handoff(session: Session, requests: Sequence[LoopRequest]) -> SystemMessage | None:
    """Switch to the agent a handoff tool asked for in the last batch, if any."""
    switch = next((r for r in requests if isinstance(r, SwitchAgent)), None)
    if switch is None:
        return None
    # start-up: handoffs load when a tool asks for a switch
    from loopwright.subagents.handoffs import PendingHandoff

    # A handoff() tool's switch is the one the loop can apply (see tools.results.Handover).
    pending = switch.to
    if not isinstance(pending, PendingHandoff):
        return None
    current = session.agent
    session.use_agent(handed_to(current, pending))
    session.conversation.replace(
        await pending.handoff.filter_history(list(session.conversation.messages))
    )
    return SystemMessage(
        "handoff",
        {
            "from_agent": current.name,
            "to_agent": pending.agent.name,
            "tool_name": pending.handoff.name,
            "tool_use_id": pending.tool_use_id,
            "model": session.agent.model.name,
        },
    )


def handed_to(current: Agent, pending: PendingHandoff) -> Agent:
    target = pending.agent
    tools = current.tools
    if target.tools is not None:
        from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME  # start-up

        # The run's structured-output tool belongs to the session, not to an agent: a run
        # that must end with a structured answer still can after the switch.
        kept = {n: t for n, t in current.tools.items() if n == STRUCTURED_OUTPUT_TOOL_NAME}
        tools = {**resolve_tools(target.tools, current.options.disallowed_tools), **kept}
    model = current.model
    if target.model is not None:
        model = with_retries(resolve_model(target.model), current.options)
    changes = {"max_tokens": target.max_tokens, "effort": target.effort}
    options = dataclasses.replace(
        current.options, **{k: v for k, v in changes.items() if v is not None}
    )
    return dataclasses.replace(
        current,
        options=options,
        model=model,
        tools=tools,
        system_prompt=current.system_prompt if target.instructions is None else target.instructions,
        guardrails=current.guardrails if target.guardrails is None else tuple(target.guardrails),
        name=target.name,
    )
