"""Guardrails in the loop: the checks that can end a run with ``error_guardrail_tripped``.

Input guardrails start with the prompt and are settled after the first model response;
tool guardrails wrap the tools of each batch (a tripped one asks the loop to end the run
through its result's request, ``EndRun``); output guardrails see a successful answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from loopwright.loop.steps import Finish, InputChecks, Then, final_text
from loopwright.messages import Message, SystemMessage, UserMessage
from loopwright.session.agent import Agent
from loopwright.session.session import Session
from loopwright.tools.base import LoopRequest, Tool
from loopwright.tools.results import EndRun

# start-up: loopwright.guardrails loads with the first guardrail (most runs have none)
if TYPE_CHECKING:
    from loopwright.guardrails import GuardrailTrip


def start_input_checks(agent: Agent, prompt: UserMessage) -> InputChecks | None:
    """Input guardrails of the run, started now so they run beside the first model call."""
    guardrails = [g for g in agent.guardrails if g.kind == "input"]
    if not guardrails:
        return None
    from loopwright.guardrails import GuardrailInput, first_trip  # start-up

    data = GuardrailInput("input", messages=[prompt], agent_name=agent.name)
    return asyncio.ensure_future(first_trip(guardrails, data))


async def settle_input_checks(checks: InputChecks | None) -> GuardrailTrip | None:
    return None if checks is None else await checks


def cancel_input_checks(checks: InputChecks | None) -> None:
    if checks is not None and not checks.done():
        checks.cancel()


async def checked_answer(session: Session, finish: Finish, before: Sequence[Message]) -> Then:
    """A successful answer meets the output guardrails before the run ends with it."""
    if finish.subtype != "success":
        return Then(before, finish)
    agent = session.agent
    guardrails = [g for g in agent.guardrails if g.kind == "output"]
    if not guardrails:
        return Then(before, finish)
    from loopwright.guardrails import GuardrailInput, first_trip  # start-up

    data = GuardrailInput(
        "output",
        messages=list(session.conversation.messages),
        text=final_text(session.conversation.messages),
        structured_output=finish.structured_output,
        agent_name=agent.name,
    )
    trip = await first_trip(guardrails, data)
    return Then(before, finish) if trip is None else tripped(trip, before)


def guard_tools(agent: Agent, tools: Mapping[str, Tool]) -> Mapping[str, Tool]:
    """The batch's tools with the agent's tool guardrails around them."""
    guardrails = [g for g in agent.guardrails if g.kind in ("tool_input", "tool_output")]
    if not guardrails:
        return tools
    from loopwright.guardrails import guarded_tool  # start-up

    return {name: guarded_tool(tool, guardrails) for name, tool in tools.items()}


def tool_ended(requests: Sequence[LoopRequest], before: Sequence[Message]) -> Then | None:
    """The run ends when a tool of the batch asked (a tripped tool guardrail): its notice,
    and how the run ends."""
    request = next((r for r in requests if isinstance(r, EndRun)), None)
    if request is None:
        return None
    return Then([*before, request.notice], Finish(request.subtype, None, request.errors))


def tripped(trip: GuardrailTrip, before: Sequence[Message] = ()) -> Then:
    """The stream's notice of a tripped guardrail, and how the run ends."""
    from loopwright.guardrails import GUARDRAIL_TRIPPED_SUBTYPE  # start-up

    notice = SystemMessage("guardrail_tripped", trip.to_data())
    return Then([*before, notice], Finish(GUARDRAIL_TRIPPED_SUBTYPE, None, (trip.describe(),)))
