"""Handoffs and guardrails in the loop: switching the agent that talks, and the checks
that can end a run with ``error_guardrail_tripped``.

The loop calls these at fixed points: input guardrails start with the run and are settled
after the first model response; tool guardrails wrap the tools of each batch; output
guardrails see a successful answer; a handoff tool's switch is applied after its batch.
Tools ask for those through their results' requests (``ToolTurn.requests``).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence

from loopwright.guardrails import (
    GUARDRAIL_TRIPPED_SUBTYPE,
    GuardrailInput,
    GuardrailTrip,
    first_trip,
    guarded_tool,
)
from loopwright.loop.steps import Finish, RunState
from loopwright.messages import SystemMessage, UserMessage
from loopwright.session.agent import Agent
from loopwright.session.resolve import resolve_model, resolve_tools, with_retries
from loopwright.session.session import Session
from loopwright.subagents.handoffs import PendingHandoff
from loopwright.tools.base import LoopRequest, Tool
from loopwright.tools.results import EndRun, SwitchAgent
from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME

InputChecks = asyncio.Task[GuardrailTrip | None]


def start_input_checks(agent: Agent, prompt: UserMessage) -> InputChecks | None:
    """Input guardrails of the run, started now so they run beside the first model call."""
    guardrails = [g for g in agent.guardrails if g.kind == "input"]
    if not guardrails:
        return None
    data = GuardrailInput("input", messages=[prompt], agent_name=agent.name)
    return asyncio.ensure_future(first_trip(guardrails, data))


async def settle_input_checks(checks: InputChecks | None) -> GuardrailTrip | None:
    return None if checks is None else await checks


def cancel_input_checks(checks: InputChecks | None) -> None:
    if checks is not None and not checks.done():
        checks.cancel()


async def output_trip(session: Session, run: RunState, finish: Finish) -> GuardrailTrip | None:
    agent = session.agent
    guardrails = [g for g in agent.guardrails if g.kind == "output"]
    if not guardrails:
        return None
    data = GuardrailInput(
        "output",
        messages=list(session.conversation.messages),
        text="".join(run.final_text),
        structured_output=finish.structured_output,
        agent_name=agent.name,
    )
    return await first_trip(guardrails, data)


def guard_tools(agent: Agent, tools: Mapping[str, Tool]) -> Mapping[str, Tool]:
    """The batch's tools with the agent's tool guardrails around them."""
    guardrails = [g for g in agent.guardrails if g.kind in ("tool_input", "tool_output")]
    if not guardrails:
        return tools
    return {name: guarded_tool(tool, guardrails) for name, tool in tools.items()}


def tool_ended(requests: Sequence[LoopRequest]) -> EndRun | None:
    """The first request of the batch to end the run (a tripped tool guardrail), if any."""
    return next((r for r in requests if isinstance(r, EndRun)), None)


def run_ended(request: EndRun) -> tuple[SystemMessage, Finish]:
    """The stream's notice of a tool's EndRun, and how the run ends."""
    return request.notice, Finish(request.subtype, None, request.errors)


def tripped(trip: GuardrailTrip) -> tuple[SystemMessage, Finish]:
    """The stream's notice of a tripped guardrail, and how the run ends."""
    notice = SystemMessage("guardrail_tripped", trip.to_data())
    return notice, Finish(GUARDRAIL_TRIPPED_SUBTYPE, None, (trip.describe(),))


async def apply_handoff(session: Session, requests: Sequence[LoopRequest]) -> SystemMessage | None:
    """Switch to the agent a handoff tool asked for in the last batch, if any: a new Agent
    on the same Conversation."""
    switch = next((r for r in requests if isinstance(r, SwitchAgent)), None)
    # A handoff() tool's switch is the one the loop can apply (see tools.results.Handover).
    pending = switch.to if switch is not None else None
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
