"""Handoffs and guardrails in the loop: switching the active agent, and the checks that
can end a run with ``error_guardrail_tripped``.

The loop calls these at fixed points: input guardrails start with the run and are settled
after the first model response; tool guardrails wrap the tools of each batch; output
guardrails see a successful answer; a handoff tool's switch is applied after its batch.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from loopwright.guardrails import (
    GUARDRAIL_TRIPPED_SUBTYPE,
    TRIPPED_SERVICE,
    Guardrail,
    GuardrailInput,
    GuardrailTrip,
    first_trip,
    guarded_tool,
)
from loopwright.handoffs import (
    ACTIVE_AGENT_SERVICE,
    ACTIVE_GUARDRAILS_SERVICE,
    PENDING_HANDOFF_SERVICE,
    PendingHandoff,
)
from loopwright.loop.steps import Finish, RunState
from loopwright.messages import Message, SystemMessage, UserMessage
from loopwright.session.assemble import resolve_model, resolve_tools, with_retries
from loopwright.session.runtime import Runtime
from loopwright.tools.base import Tool
from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME

InputChecks = asyncio.Task[GuardrailTrip | None]


def active_guardrails(rt: Runtime) -> Sequence[Guardrail]:
    """The guardrails of the agent now talking (a handoff may have replaced them)."""
    chosen = rt.services.get(ACTIVE_GUARDRAILS_SERVICE)
    return rt.options.guardrails if chosen is None else chosen


def active_agent(rt: Runtime) -> str | None:
    name = rt.services.get(ACTIVE_AGENT_SERVICE)
    return name if isinstance(name, str) else None


def start_input_checks(rt: Runtime, prompt: UserMessage) -> InputChecks | None:
    """Input guardrails of the run, started now so they run beside the first model call."""
    guardrails = [g for g in active_guardrails(rt) if g.kind == "input"]
    if not guardrails:
        return None
    data = GuardrailInput("input", messages=[prompt], agent_name=active_agent(rt))
    return asyncio.ensure_future(first_trip(guardrails, data))


async def settle_input_checks(checks: InputChecks | None) -> GuardrailTrip | None:
    return None if checks is None else await checks


def cancel_input_checks(checks: InputChecks | None) -> None:
    if checks is not None and not checks.done():
        checks.cancel()


async def output_trip(rt: Runtime, run: RunState, finish: Finish) -> GuardrailTrip | None:
    guardrails = [g for g in active_guardrails(rt) if g.kind == "output"]
    if not guardrails:
        return None
    data = GuardrailInput(
        "output",
        messages=list(rt.history),
        text="".join(run.final_text),
        structured_output=finish.structured_output,
        agent_name=active_agent(rt),
    )
    return await first_trip(guardrails, data)


def guard_tools(rt: Runtime, tools: dict[str, Tool]) -> dict[str, Tool]:
    """The batch's tools with the active tool guardrails around them."""
    guardrails = [g for g in active_guardrails(rt) if g.kind in ("tool_input", "tool_output")]
    if not guardrails:
        return tools
    return {name: guarded_tool(tool, guardrails) for name, tool in tools.items()}


def tool_trip(rt: Runtime) -> GuardrailTrip | None:
    trip = rt.services.pop(TRIPPED_SERVICE, None)
    return trip if isinstance(trip, GuardrailTrip) else None


def tripped(trip: GuardrailTrip) -> tuple[SystemMessage, Finish]:
    """The stream's notice of a tripped guardrail, and how the run ends."""
    notice = SystemMessage("guardrail_tripped", trip.to_data())
    return notice, Finish(GUARDRAIL_TRIPPED_SUBTYPE, None, (trip.describe(),))


async def apply_handoff(rt: Runtime) -> Message | None:
    """Switch to the agent a handoff tool asked for in the last batch, if any."""
    pending = rt.services.pop(PENDING_HANDOFF_SERVICE, None)
    if not isinstance(pending, PendingHandoff):
        return None
    agent = pending.agent
    previous = active_agent(rt)
    if agent.instructions is not None:
        rt.system_prompt = agent.instructions
    if agent.tools is not None:
        # The run's structured-output tool belongs to the session, not to an agent: a run
        # that must end with a structured answer still can after the switch.
        kept = {n: t for n, t in rt.tools.items() if n == STRUCTURED_OUTPUT_TOOL_NAME}
        rt.tools = {**resolve_tools(agent.tools, rt.options.disallowed_tools), **kept}
    if agent.model is not None:
        rt.retired_models.append(rt.model)  # closed with the session: a request may hold it
        rt.model = with_retries(resolve_model(agent.model), rt.options)
    changes = {"max_tokens": agent.max_tokens, "effort": agent.effort}
    rt.options = dataclasses.replace(
        rt.options, **{k: v for k, v in changes.items() if v is not None}
    )
    if agent.guardrails is not None:
        rt.services[ACTIVE_GUARDRAILS_SERVICE] = list(agent.guardrails)
    rt.services[ACTIVE_AGENT_SERVICE] = agent.name
    rt.history[:] = await pending.handoff.filter_history(list(rt.history))
    return SystemMessage(
        "handoff",
        {
            "from_agent": previous,
            "to_agent": agent.name,
            "tool_name": pending.handoff.name,
            "tool_use_id": pending.tool_use_id,
            "model": rt.model.name,
        },
    )
