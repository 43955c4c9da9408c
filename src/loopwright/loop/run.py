"""THE loop.

Ask the model; if it called tools, run them and ask again; stop when it answers without
tool calls or a limit is reached. Every run starts with an ``init`` system message and
ends with exactly one ``ResultMessage``; limits and failures end the run with an error
result that carries the partial transcript, never with an exception inside the stream.

Each model response becomes a tagged next step (:class:`Finish`, :class:`RunTools`,
:class:`AskAgain`) dispatched in one ``match`` in :func:`_run`, so the whole policy reads
top to bottom; :func:`_ask` and :func:`_act` are its two halves.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import assert_never

from loopwright import telemetry
from loopwright.loop.agents import (
    apply_handoff,
    cancel_input_checks,
    output_trip,
    run_ended,
    settle_input_checks,
    start_input_checks,
    tool_ended,
    tripped,
)
from loopwright.loop.approvals import defer, pending_batch, settle
from loopwright.loop.compaction import (
    compact_now,
    compaction_due,
    manual_compact,
    manual_compact_focus,
)
from loopwright.loop.decide import limit_reached, next_step, turns_exhausted
from loopwright.loop.hook_events import stop_hook, submit_prompt
from loopwright.loop.model_turn import ModelTurn, assistant_message, model_turn
from loopwright.loop.steps import (
    INTERRUPTED_BY_USER,
    AskAgain,
    Finish,
    NextStep,
    RunState,
    RunTools,
    result_message,
)
from loopwright.loop.structured import structured_after_tools
from loopwright.loop.tool_turn import ToolTurn, close_calls, orphans_closed, tool_turn
from loopwright.messages import Message, ResultMessage, SystemMessage, ToolUseBlock, UserMessage
from loopwright.session.conversation import TranscriptWriteError
from loopwright.session.session import Session, init_data

_STEPS = (Finish, RunTools, AskAgain)  # what _ask ends with, besides its messages


async def agent_loop(session: Session, prompt: UserMessage | None) -> AsyncIterator[Message]:
    """Run one prompt to completion, yielding every message of the run.

    Calls of the session that wait for approval are settled first; ``prompt`` None goes
    on from them without a new prompt. Each message is in the session's transcript
    before it is yielded, so a crash at any point loses nothing the consumer has seen.
    """
    run = RunState()
    turns = _run(session, prompt, run)
    span = _start_run_span(session)
    result: ResultMessage | None = None
    try:
        async for message in turns:
            await session.conversation.record(message)
            result = message if isinstance(message, ResultMessage) else result
            yield message
    except TranscriptWriteError as exc:  # a full disk, a dropped database connection …
        await turns.aclose()
        for closing in await _stop_unrecorded(session, run, exc):
            result = closing if isinstance(closing, ResultMessage) else result
            yield closing
    finally:
        await turns.aclose()
        session.interrupt_event.clear()  # an interrupt stops this run, never a later one
        _end_run_span(span, result)


async def _run(
    session: Session, prompt: UserMessage | None, run: RunState
) -> AsyncGenerator[Message, None]:
    session.spend.start_run()
    yield SystemMessage("init", init_data(session))
    for notice in session.take_pending_notices():
        yield notice
    going_on = True
    async for item in _opening(session, run, prompt):
        if isinstance(item, bool):
            going_on = item
        else:
            yield item
    if not going_on:
        return
    try:
        while True:
            step: NextStep = INTERRUPTED_BY_USER
            async for item in _ask(session, run):
                if isinstance(item, _STEPS):
                    step = item
                else:
                    yield item
            match step:
                case Finish():
                    yield result_message(session, run, step)
                    return
                case AskAgain(follow_up=follow_up, max_tokens=max_tokens, note=note):
                    run.max_tokens_override = max_tokens or run.max_tokens_override
                    if note:
                        yield SystemMessage("informational", {"message": note})
                    if follow_up is not None:
                        yield await session.conversation.append(follow_up)
                case RunTools(calls=calls):
                    async for item in _act(session, run, calls):
                        if isinstance(item, Finish):
                            yield result_message(session, run, item)
                            return
                        yield item
                case _:
                    assert_never(step)
    except TranscriptWriteError:
        raise  # agent_loop stops the run: nothing more could be saved
    except Exception as exc:  # whatever breaks, the stream still ends with a result
        for message in await _crashed(session, run, exc):
            yield message
    except asyncio.CancelledError:
        await _answer_orphans(session)  # so the session can be resumed; then let it through
        raise
    finally:
        cancel_input_checks(run.input_checks)


async def _ask(session: Session, run: RunState) -> AsyncIterator[Message | NextStep]:
    """Compaction when due, one model call, and the step its response asks for (last)."""
    conversation = session.conversation
    if (tokens := compaction_due(session)) is not None:
        for message in await compact_now(session, tokens):
            yield message
    if session.interrupted:
        yield INTERRUPTED_BY_USER
        return
    turn = ModelTurn(None)
    async for item in model_turn(session, run):
        if isinstance(item, ModelTurn):
            turn = item
        else:
            yield item
    trip = await settle_input_checks(run.take_input_checks())
    if trip is not None:  # the model's answer is not used
        for item in tripped(trip):
            yield item
        return
    if turn.response is None:
        if turn.context_exceeded and not run.reactive_compaction_tried:
            run.reactive_compaction_tried = True  # compact once and ask again
            if (tokens := compaction_due(session, forced=True)) is not None:
                for message in await compact_now(session, tokens):
                    yield message
            yield AskAgain()
            return
        yield turn.failed(session.interrupted)
        return
    step = next_step(session.agent, run, turn.response)
    assistant = assistant_message(session, turn.response)
    if not (isinstance(step, AskAgain) and not step.keep_response):
        yield await conversation.append(assistant)
        session.meter.record(turn.response.usage, conversation.messages)
    limit = limit_reached(session.agent.options, session.spend.run)
    if limit is not None:
        if isinstance(step, RunTools):
            reason = f"Not run: the run ended ({limit.subtype})."
            yield await conversation.append(close_calls(session, step.calls, reason))
        yield limit
        return
    if isinstance(step, Finish) and conversation.last is assistant and assistant.tool_calls:
        # e.g. a tool call cut off twice: its call is answered before the run ends
        yield await conversation.append(
            close_calls(session, assistant.tool_calls, "Not run: the run ended.")
        )
    if isinstance(step, Finish) and step.subtype == "success":
        step, notices = await stop_hook(session, run, step)
        for message in notices:
            yield message
    if not isinstance(step, Finish):
        yield step
        return
    for item in await _checked_answer(session, run, step):
        yield item


async def _act(
    session: Session, run: RunState, calls: Sequence[ToolUseBlock]
) -> AsyncIterator[Message | Finish]:
    """Run one batch of tool calls; a Finish (last) when the run ends with it."""
    conversation = session.conversation
    if turns_exhausted(session.agent.options, run):
        reason = "Not run: the maximum number of turns was reached."
        yield await conversation.append(close_calls(session, calls, reason))
        yield Finish("error_max_turns", "tool_use")
        return
    run.num_turns += 1
    session.spend.add_turn()
    run.final_text.clear()
    turn: ToolTurn | None = None
    async for item in tool_turn(session, calls):
        if isinstance(item, ToolTurn):
            turn = item
        else:
            yield item
    assert turn is not None  # tool_turn always ends with its ToolTurn
    session.spend.add_denials(turn.denials)
    if turn.deferred and turn.stop is None and turn.failed is None and session.parent is None:
        # Calls wait for a person: the run ends here, the other calls' results are kept.
        # (A subagent cannot wait: its model reads that the call needs approval.)
        for item in await defer(session, pending_batch(session, calls, turn, None)):
            yield item
        return
    yield await conversation.append(turn.message)
    for message in turn.notices:
        yield message
    ended = tool_ended(turn.requests)
    if ended is not None:
        for item in run_ended(ended):
            yield item
        return
    switched = await apply_handoff(session, turn.requests)
    if switched is not None:
        yield switched
    # In this order: a stop, then a valid structured answer, then a broken batch.
    ending = (
        turn.stop or structured_after_tools(session.agent, run, calls, turn.results) or turn.failed
    )
    if ending is not None:
        for item in await _checked_answer(session, run, ending):
            yield item


async def _opening(
    session: Session, run: RunState, prompt: UserMessage | None
) -> AsyncIterator[Message | bool]:
    """Calls that wait for approval settled, then the prompt in the conversation (or a
    manual compaction); last, whether the run goes on to ask the model."""
    if session.pending is not None or prompt is None:
        async for item in _settle(session, prompt):
            if isinstance(item, Finish):
                yield result_message(session, run, item)
                yield False
                return
            yield item
    if prompt is None:
        yield True
        return
    focus = manual_compact_focus(prompt)
    if focus is not None:
        for message in await manual_compact(session, run, focus):
            yield message
        yield False
        return
    submitted = await submit_prompt(session, prompt)
    for message in submitted.notices:
        yield message
    if submitted.blocked is not None:
        yield result_message(session, run, submitted.blocked)
        yield False
        return
    yield await session.conversation.append(submitted.prompt)
    session.checkpoint(submitted.prompt.uuid)
    run.input_checks = start_input_checks(session.agent, submitted.prompt)
    yield True


async def _settle(session: Session, prompt: UserMessage | None) -> AsyncIterator[Message | Finish]:
    """The waiting calls answered before the prompt; a Finish (last) when the run cannot
    go on (calls still wait, or there is nothing to go on from)."""
    if session.pending is None:
        reason = (
            f"nothing to go on from: session {session.session_id} has no calls waiting for "
            "approval; send a prompt instead"
        )
        yield Finish("error_during_execution", None, (reason,))
        return
    async for item in settle(session):
        if isinstance(item, Finish) and prompt is not None and item.subtype == "pending_approval":
            unsent = "the prompt was not sent: answer the calls that wait first"
            yield dataclasses.replace(item, errors=(*item.errors, unsent))
            return
        yield item


async def _checked_answer(
    session: Session, run: RunState, finish: Finish
) -> list[Message | Finish]:
    """A successful answer meets the output guardrails before the run ends with it."""
    if finish.subtype != "success":
        return [finish]
    trip = await output_trip(session, run, finish)
    return [finish] if trip is None else list(tripped(trip))


async def _crashed(session: Session, run: RunState, exc: Exception) -> list[Message]:
    """The run broke: every open tool call is answered, then the run ends with an error."""
    closing = orphans_closed(session, f"Not run: the run failed ({type(exc).__name__}).")
    failed = Finish("error_during_execution", None, (f"{type(exc).__name__}: {exc}",))
    ended = result_message(session, run, failed)
    return [await session.conversation.append(closing), ended] if closing else [ended]


async def _answer_orphans(session: Session) -> None:
    """The consumer's task was cancelled: still answer every tool call in the history."""
    closing = orphans_closed(session)
    if closing is not None:
        await session.conversation.append(closing)


async def _stop_unrecorded(
    session: Session, run: RunState, exc: TranscriptWriteError
) -> list[Message]:
    """The transcript cannot be written: stop rather than do work nobody could resume."""
    session.conversation.stop_recording()
    closing = orphans_closed(session, "Not run: the session transcript failed.")
    if closing is not None:
        await session.conversation.append(closing)
    reason = (
        f"the session transcript could not be written ({exc}); the run was stopped so "
        "that no unsaved work goes on. Free disk space or fix the session store, then "
        f"resume session {session.session_id} to go on from what was saved"
    )
    ended = result_message(session, run, Finish("error_during_execution", None, (reason,)))
    return [closing, ended] if closing is not None else [ended]


def _start_run_span(session: Session) -> object:
    parent_context = session.parent.trace_context if session.parent is not None else None
    agent = session.agent
    span, session.trace_context = telemetry.start_run(
        {
            telemetry.CONVERSATION_ID: session.session_id,
            telemetry.REQUEST_MODEL: agent.model.name,
            telemetry.PROVIDER: telemetry.provider_name(agent.model),
            "loopwright.session_id": session.session_id,
            "loopwright.model": agent.model.name,
            "loopwright.parent_tool_use_id": agent.parent_tool_use_id,
        },
        parent_context,
    )
    return span


def _end_run_span(span: object, result: ResultMessage | None) -> None:
    if result is None:
        telemetry.end_run(span, {}, error="the run was cancelled")
        return
    telemetry.end_run(
        span,
        {
            telemetry.INPUT_TOKENS: result.usage.input_tokens,
            telemetry.OUTPUT_TOKENS: result.usage.output_tokens,
            "loopwright.result": result.subtype,
            "loopwright.num_turns": result.num_turns,
            "loopwright.cost_usd": result.total_cost_usd,
            "loopwright.input_tokens": result.usage.input_tokens,
            "loopwright.output_tokens": result.usage.output_tokens,
        },
        error="; ".join(result.errors) or result.subtype if result.is_error else None,
    )
