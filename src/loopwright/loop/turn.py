"""What the loop makes of each model call and each batch: the messages they leave in the
conversation and the step that comes next. Each function returns a :class:`Then`; none
streams and none changes the run's counters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loopwright.loop.compaction import compact_now, compaction_due
from loopwright.loop.decide import keeps_response, limit_reached, next_step, turns_exhausted
from loopwright.loop.guardrail_checks import checked_answer, tool_ended, tripped
from loopwright.loop.handoffs import apply_handoff
from loopwright.loop.hook_events import stop_hook
from loopwright.loop.model_turn import assistant_message, call_failed, context_exceeded
from loopwright.loop.steps import Ask, Finish, RunState, RunTools, Then
from loopwright.loop.structured import structured_after_tools
from loopwright.loop.tool_turn import ToolTurn, close_calls
from loopwright.loop.work import Ended
from loopwright.messages import Message, SystemMessage
from loopwright.models.base import ModelResponse
from loopwright.session.session import Session

if TYPE_CHECKING:
    from loopwright.guardrails import GuardrailTrip


async def before_asking(session: Session, ask: Ask) -> list[Message]:
    """What goes before the call: the step's note and follow-up, then a compaction when
    the context has grown past the threshold."""
    messages: list[Message] = []
    if ask.note:
        messages.append(SystemMessage("informational", {"message": ask.note}))
    if ask.follow_up is not None:
        messages.append(await session.conversation.append(ask.follow_up))
    if (tokens := compaction_due(session)) is not None:
        messages += await compact_now(session, tokens)
    return messages


async def answered(
    session: Session, run: RunState, ended: Ended[ModelResponse | None], trip: GuardrailTrip | None
) -> Then:
    """The step a model call leads to; its response joins the conversation first."""
    if trip is not None:  # an input guardrail tripped: the model's answer is not used
        return tripped(trip)
    response = ended.value
    if response is None:
        if context_exceeded(ended) and not run.reactive_compaction_tried:
            # Compact once (the prompt is too long for the window) and ask again.
            tokens = compaction_due(session, forced=True)
            compacted = await compact_now(session, tokens) if tokens is not None else []
            return Then(compacted, Ask("compacted_after_overflow"))
        return Then((), call_failed(ended, session.interrupted))
    conversation = session.conversation
    step = next_step(session.agent, run, response)
    assistant = assistant_message(session, response)
    messages: list[Message] = []
    if keeps_response(step):
        messages.append(await conversation.append(assistant))
        session.meter.record(response.usage, conversation.messages)
    limit = limit_reached(session.agent.options, session.spend.run)
    if limit is not None:
        if isinstance(step, RunTools):
            reason = f"Not run: the run ended ({limit.subtype})."
            messages.append(await conversation.append(close_calls(session, step.calls, reason)))
        return Then(messages, limit)
    if isinstance(step, RunTools) and turns_exhausted(session.agent.options, run):
        reason = "Not run: the maximum number of turns was reached."
        messages.append(await conversation.append(close_calls(session, step.calls, reason)))
        return Then(messages, Finish("error_max_turns", "tool_use"))
    if not isinstance(step, Finish):
        return Then(messages, step)
    if conversation.last is assistant and assistant.tool_calls:
        # e.g. a tool call cut off twice: its call is answered before the run ends
        closing = close_calls(session, assistant.tool_calls, "Not run: the run ended.")
        messages.append(await conversation.append(closing))
    if step.subtype == "success":
        hooked = await stop_hook(session, run, step)
        messages += hooked.messages
        if not isinstance(hooked.step, Finish):
            return Then(messages, hooked.step)
    return await checked_answer(session, step, messages)


async def after_tools(session: Session, run: RunState, batch: RunTools, turn: ToolTurn) -> Then:
    """The step a batch leads to; its results join the conversation first — unless calls
    wait for a person, and the run ends until they answer."""
    session.spend.add_denials(turn.denials)
    # start-up: approvals load with the first batch
    from loopwright.loop.approvals import defer, pending_batch, settled

    if batch.settling is not None:
        return await settled(session, batch.settling, batch.calls, turn)
    if turn.deferred and turn.stop is None and turn.failed is None and session.parent is None:
        # The other calls' results are kept with the waiting ones. (A subagent cannot
        # wait: its model reads that the call needs approval.)
        return defer(session, pending_batch(session, batch.calls, turn, None))
    messages: list[Message] = [await session.conversation.append(turn.message), *turn.notices]
    if (ended := tool_ended(turn.requests, messages)) is not None:
        return ended
    if (switched := await apply_handoff(session, turn.requests)) is not None:
        messages.append(switched)
    structured = structured_after_tools(session.agent, run, batch.calls, turn.results)
    # In this order: a stop, then a valid structured answer, then a broken batch.
    ending = turn.stop or (structured if isinstance(structured, Finish) else None) or turn.failed
    if ending is None:
        return Then(messages, structured or Ask("after_tools"))
    return await checked_answer(session, ending, messages)
