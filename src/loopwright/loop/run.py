"""THE loop.

Ask the model; if it called tools, run them and ask again; stop when it answers without
tool calls or a limit is reached. Every run starts with an ``init`` system message and
ends with exactly one ``ResultMessage``; limits and failures end the run with an error
result that carries the partial transcript, never with an exception inside the stream.

A run is a sequence of steps (:mod:`loopwright.loop.steps`) taken in one ``match`` in
:func:`_run`, the only generator of the loop: the model call and the tool batch run as
work whose messages it streams and whose end it reads after the block; every other part
returns the messages it produced and the next step (a :class:`Then`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from functools import partial
from typing import assert_never

from loopwright import telemetry
from loopwright.loop.guardrail_checks import cancel_input_checks, settle_input_checks
from loopwright.loop.model_turn import ask_model, build_request
from loopwright.loop.opening import first_step, submitted
from loopwright.loop.steps import (
    INTERRUPTED_BY_USER,
    Ask,
    Finish,
    InputChecks,
    Prompt,
    RunState,
    RunTools,
    Then,
    advance,
    result_message,
)
from loopwright.loop.tool_turn import ToolBatch, orphans_closed
from loopwright.loop.turn import after_tools, answered, before_asking
from loopwright.loop.work import Running
from loopwright.messages import Message, ResultMessage, SystemMessage, UserMessage
from loopwright.session.conversation import TranscriptWriteError
from loopwright.session.session import Session, init_data


async def agent_loop(session: Session, prompt: UserMessage | None) -> AsyncIterator[Message]:
    """Run one prompt to completion, yielding every message of the run.

    Calls of the session that wait for approval are settled first; ``prompt`` None goes
    on from them without a new prompt. Each message is in the session's transcript
    before it is yielded, so a crash at any point loses nothing the consumer has seen.
    """
    turns = _run(session, prompt)
    span = _start_run_span(session)
    result: ResultMessage | None = None
    try:
        message = await anext(turns, None)
        while message is not None:
            try:
                await session.conversation.record(message)
            except TranscriptWriteError as exc:  # a full disk, a dropped database …
                message = await _thrown(turns, exc)  # the run stops, saying why
                continue  # (nothing more is recorded)
            result = message if isinstance(message, ResultMessage) else result
            yield message
            message = await anext(turns, None)
    finally:
        await turns.aclose()
        session.interrupt_event.clear()  # an interrupt stops this run, never a later one
        _end_run_span(span, result)


async def _run(session: Session, prompt: UserMessage | None) -> AsyncGenerator[Message, None]:
    """The run as steps, each taken here: its counters advanced, its messages streamed,
    its work (a model call, a batch) run and read back; until a Finish gives the result."""
    run = RunState()
    checks: InputChecks | None = None
    session.spend.start_run()
    ending: list[Message] = []
    try:
        yield SystemMessage("init", init_data(session))
        for notice in session.take_pending_notices():
            yield notice
        then = first_step(session, prompt)
        while True:
            for message in then.messages:
                yield message
            checks = then.input_checks or checks
            step = then.step
            run = advance(run, step)
            match step:
                case Finish():
                    yield result_message(session, run, step)
                    return
                case Prompt():
                    then = await submitted(session, step.prompt)
                case Ask():
                    for message in await before_asking(session, step):
                        yield message
                    if session.interrupted:
                        then = Then((), INTERRUPTED_BY_USER)
                        continue
                    call = partial(ask_model, session=session, request=build_request(session, run))
                    async with Running(session, call) as work:
                        while (message := await work.next()) is not None:
                            yield message
                    trip = await settle_input_checks(checks)  # beside the first call only
                    checks = None
                    then = await answered(session, run, work.ended(), trip)
                case RunTools(calls=calls, settling=settling):
                    if settling is None:
                        session.spend.add_turn()
                    batch = ToolBatch(session, calls, settling.gate if settling else None)
                    async with Running(session, batch.run) as work:
                        while (message := await work.next()) is not None:
                            yield message
                    then = await after_tools(session, run, step, batch.turn(work.ended()))
                case _:
                    assert_never(step)
    except asyncio.CancelledError:
        await _answer_orphans(session)  # so the session can be resumed; then let it through
        raise
    except Exception as exc:  # whatever breaks, the stream still ends with a result
        ending = await _ended_early(session, run, exc)
    finally:
        cancel_input_checks(checks)
    for message in ending:
        try:
            yield message
        except TranscriptWriteError as exc:  # thrown in by agent_loop: stop unrecorded
            for closing in await _stop_unrecorded(session, run, exc):
                yield closing  # (recording has stopped: nothing is thrown in again)
            return


async def _ended_early(session: Session, run: RunState, exc: Exception) -> list[Message]:
    """A failure ended the run — or the transcript failed (a full disk, a dropped database
    connection, thrown in by agent_loop or met on the way), and nothing more can be saved."""
    if not isinstance(exc, TranscriptWriteError):
        try:
            return await _crashed(session, run, exc)
        except TranscriptWriteError as unsaved:
            exc = unsaved
    return await _stop_unrecorded(session, run, exc)


async def _thrown(turns: AsyncGenerator[Message, None], exc: BaseException) -> Message | None:
    try:
        return await turns.athrow(exc)
    except StopAsyncIteration:
        return None


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
