"""THE loop.

Ask the model; if it called tools, run them and ask again; stop when it answers without
tool calls or a limit is reached. Every run starts with an ``init`` system message and
ends with exactly one ``ResultMessage``; limits and failures end the run with an error
result that carries the partial transcript, never with an exception inside the stream.

Each model response is turned into a tagged next step (:class:`Finish`, :class:`RunTools`,
:class:`AskAgain`) and dispatched in one place, so the whole policy reads top to bottom.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from functools import partial
from typing import assert_never

from loopwright import telemetry
from loopwright.loop.agents import (
    apply_handoff,
    cancel_input_checks,
    output_trip,
    settle_input_checks,
    start_input_checks,
    tool_trip,
    tripped,
)
from loopwright.loop.compaction import (
    auto_compact,
    compaction_due,
    manual_compact,
    manual_compact_focus,
)
from loopwright.loop.hook_events import stop_hook, submit_prompt
from loopwright.loop.steps import (
    CONTINUE_PROMPT,
    DEFAULT_MAX_TOKENS,
    INTERRUPTED_BY_USER,
    MAX_CONSECUTIVE_PAUSES,
    MAX_TEXT_CONTINUATIONS,
    AskAgain,
    Finish,
    NextStep,
    RunState,
    RunTools,
    result_message,
)
from loopwright.loop.structured import structured_after_tools, structured_from_answer
from loopwright.loop.work import (
    Work,
    answer_orphans,
    ask_model,
    assistant_message,
    build_request,
    close_calls,
    context_exceeded,
    drain,
    failed_model_call,
    interruptible,
    missing_result,
    run_tools,
)
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.base import (
    ModelResponse,
)
from loopwright.session.checkpoints import FILE_CHECKPOINTS_SERVICE, FileCheckpoints
from loopwright.session.runtime import Runtime, init_data
from loopwright.tools.executor import BatchOutcome

# --------------------------------------------------------------------------- the loop


async def agent_loop(rt: Runtime, prompt: UserMessage) -> AsyncIterator[Message]:
    """Run one prompt to completion, yielding every message of the run.

    Each message is appended to the session's transcript before it is yielded, so a crash
    at any point loses nothing the consumer has seen.
    """
    run = RunState()
    turns = _run(rt, prompt, run)
    parent_context = rt.parent.trace_context if rt.parent is not None else None
    span, rt.trace_context = telemetry.start_run(
        {
            telemetry.CONVERSATION_ID: rt.session_id,
            telemetry.REQUEST_MODEL: rt.model.name,
            telemetry.PROVIDER: telemetry.provider_name(rt.model),
            "loopwright.session_id": rt.session_id,
            "loopwright.model": rt.model.name,
            "loopwright.parent_tool_use_id": rt.parent_tool_use_id,
        },
        parent_context,
    )
    rt.services["trace_context"] = rt.trace_context
    result: ResultMessage | None = None
    try:
        async for message in turns:
            try:
                await record(rt, message)
            except Exception as exc:  # a full disk, a dropped database connection …
                await turns.aclose()
                async for closing in _stop_unrecorded(rt, run, exc):
                    result = closing if isinstance(closing, ResultMessage) else result
                    yield closing
                return
            if isinstance(message, ResultMessage):
                result = message
            yield message
    except asyncio.CancelledError:
        # The closing results for calls cut short were added to the history, not yielded.
        last = rt.history[-1] if rt.history else None
        if rt.recorder is not None and last is not None and last.uuid != rt.last_recorded_uuid:
            await record(rt, last)
        raise
    finally:
        await turns.aclose()
        rt.interrupt_event.clear()  # an interrupt stops this run, never a later one
        _end_run_span(span, result)


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


async def _stop_unrecorded(rt: Runtime, run: RunState, exc: Exception) -> AsyncIterator[Message]:
    """The transcript cannot be written: stop rather than do work nobody could resume."""
    rt.recorder = None
    last = rt.history[-1] if rt.history else None
    if isinstance(last, AssistantMessage) and last.tool_calls:
        yield close_calls(rt, last.tool_calls, "Not run: the session transcript failed.")
    reason = (
        f"the session transcript could not be written ({type(exc).__name__}: {exc}); the run "
        "was stopped so that no unsaved work goes on"
    )
    yield result_message(rt, run, Finish("error_during_execution", None, (reason,)))


async def record(rt: Runtime, message: Message) -> None:
    """Append to the transcript; at each turn end also snapshot state and sync to disk."""
    if rt.recorder is None or isinstance(message, StreamEvent):
        return
    await rt.recorder.message(message)
    rt.last_recorded_uuid = message.uuid
    turn_ended = isinstance(message, ResultMessage) or (
        isinstance(message, UserMessage)
        and message.parent_tool_use_id is None
        and any(isinstance(b, ToolResultBlock) for b in message.blocks)
    )
    if turn_ended:
        await rt.recorder.state(rt.snapshot())
        await rt.recorder.sync()


async def _run(rt: Runtime, prompt: UserMessage, run: RunState) -> AsyncGenerator[Message, None]:
    rt.start_run()
    yield SystemMessage("init", init_data(rt))
    for notice in rt.pending_notices:
        yield notice
    rt.pending_notices.clear()
    manual_focus = manual_compact_focus(prompt)
    if manual_focus is not None:
        async for message in manual_compact(rt, run, manual_focus):
            yield message
        return
    prompt, blocked, notices = await submit_prompt(rt, prompt)
    for message in notices:
        yield message
    if blocked is not None:
        yield result_message(rt, run, blocked)
        return
    rt.history.append(prompt)
    yield prompt
    if rt.options.enable_file_checkpointing:
        checkpoints = rt.services.setdefault(FILE_CHECKPOINTS_SERVICE, FileCheckpoints())
        checkpoints.begin(prompt.uuid)
    input_checks = start_input_checks(rt, prompt)  # beside the first model call
    try:
        while True:
            if rt.interrupt_event.is_set():
                yield result_message(rt, run, INTERRUPTED_BY_USER)
                return
            tokens = compaction_due(rt)
            if tokens is not None:
                for message in await interruptible(rt, auto_compact(rt, run, tokens)) or []:
                    yield message
            if rt.interrupt_event.is_set():
                yield result_message(rt, run, INTERRUPTED_BY_USER)
                return

            request = build_request(rt, run)
            response_box: list[ModelResponse] = []
            work = Work(
                partial(ask_model, rt=rt, run=run, request=request, response_box=response_box)
            )
            async for message in drain(rt, work):
                yield message
            trip = await settle_input_checks(input_checks)
            input_checks = None
            if trip is not None:  # the model's answer is not used
                notice, finish = tripped(trip)
                yield notice
                yield result_message(rt, run, finish)
                return
            if not response_box:
                if context_exceeded(work) and not run.reactive_compaction_tried:
                    run.reactive_compaction_tried = True
                    tokens = compaction_due(rt, forced=True)
                    if tokens is not None:
                        for message in await auto_compact(rt, run, tokens):
                            yield message
                    continue
                yield result_message(rt, run, failed_model_call(rt, work))
                return
            response = response_box[0]
            rt.add_usage(response.model, response.usage)

            step = _next_step(rt, run, response)
            assistant = assistant_message(rt, response)
            if not (isinstance(step, AskAgain) and not step.keep_response):
                rt.history.append(assistant)
                rt.meter.record(response.usage, rt.history)
                yield assistant

            limit = _limit_reached(rt, run)
            if limit is not None:
                if isinstance(step, RunTools):
                    yield close_calls(rt, step.calls, f"Not run: the run ended ({limit.subtype}).")
                yield result_message(rt, run, limit)
                return
            ends_with_calls = rt.history and rt.history[-1] is assistant and assistant.tool_calls
            if isinstance(step, Finish) and ends_with_calls:  # e.g. a call cut off twice
                yield close_calls(rt, assistant.tool_calls, "Not run: the run ended.")
            if isinstance(step, Finish) and step.subtype == "success":
                step, notices = await stop_hook(rt, run, step)
                for message in notices:
                    yield message
            if isinstance(step, Finish) and step.subtype == "success":
                trip = await output_trip(rt, run, step)
                if trip is not None:
                    notice, step = tripped(trip)
                    yield notice

            match step:
                case Finish():
                    yield result_message(rt, run, step)
                    return
                case AskAgain(follow_up=follow_up, max_tokens=max_tokens, note=note):
                    run.max_tokens_override = max_tokens or run.max_tokens_override
                    if note:
                        yield SystemMessage("informational", {"message": note})
                    if follow_up is not None:
                        rt.history.append(follow_up)
                        yield follow_up
                case RunTools(calls=calls):
                    if rt.options.max_turns is not None and run.num_turns >= rt.options.max_turns:
                        yield close_calls(
                            rt, calls, "Not run: the maximum number of turns was reached."
                        )
                        yield result_message(rt, run, Finish("error_max_turns", "tool_use"))
                        return
                    run.num_turns += 1
                    rt.num_turns_total += 1
                    run.final_text.clear()
                    outcome = BatchOutcome()
                    work = Work(partial(run_tools, rt=rt, calls=calls, outcome=outcome))
                    async for message in drain(rt, work):
                        yield message
                    results = outcome.ordered(calls, missing_result(work, outcome))
                    rt.add_denials(outcome.denials)
                    tool_results = UserMessage(list(results), rt.parent_tool_use_id)
                    rt.history.append(tool_results)
                    yield tool_results
                    for message in rt.gate_messages():
                        yield message
                    trip = tool_trip(rt)
                    if trip is not None:
                        notice, finish = tripped(trip)
                        yield notice
                        yield result_message(rt, run, finish)
                        return
                    switched = await apply_handoff(rt)
                    if switched is not None:
                        yield switched
                    ending = _after_batch(rt, run, calls, results, outcome, work)
                    if ending is not None and ending.subtype == "success":  # structured output
                        trip = await output_trip(rt, run, ending)
                        if trip is not None:
                            notice, ending = tripped(trip)
                            yield notice
                    if ending is not None:
                        yield result_message(rt, run, ending)
                        return
                case _:
                    assert_never(step)
    except Exception as exc:  # whatever breaks, the stream still ends with a result
        closing = answer_orphans(rt, f"Not run: the run failed ({type(exc).__name__}).")
        if closing is not None:
            yield closing
        yield result_message(
            rt, run, Finish("error_during_execution", None, (f"{type(exc).__name__}: {exc}",))
        )
    except asyncio.CancelledError:
        # The consumer's task was cancelled: still answer every tool call in the history so
        # the session can be resumed, then let the cancellation through.
        answer_orphans(rt)
        raise
    finally:
        cancel_input_checks(input_checks)


# --------------------------------------------------------------------------- decisions


def _next_step(rt: Runtime, run: RunState, response: ModelResponse) -> NextStep:
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    stop = response.stop_reason
    if stop != "pause_turn":
        run.pauses = 0
    if stop == "max_tokens" and calls and (calls[-1].raw_input is not None or not calls[-1].input):
        if run.cut_tool_call_retried:
            return Finish(
                "error_during_execution",
                "max_tokens",
                ("the model's tool call was cut off by max_tokens twice; raise max_tokens",),
            )
        run.cut_tool_call_retried = True
        larger = 2 * (run.max_tokens_override or rt.options.max_tokens or DEFAULT_MAX_TOKENS)
        return AskAgain(
            None,
            larger,
            keep_response=False,
            note=f"a tool call was cut off by max_tokens; retrying with max_tokens={larger}",
        )
    if calls:
        return RunTools(calls)
    text = "".join(getattr(b, "text", "") for b in response.content if b.type == "text")
    run.final_text.append(text)
    match stop:
        case "max_tokens" if run.continuations < MAX_TEXT_CONTINUATIONS:
            run.continuations += 1
            return AskAgain(UserMessage(CONTINUE_PROMPT, rt.parent_tool_use_id))
        case "pause_turn" if run.pauses < MAX_CONSECUTIVE_PAUSES:
            run.pauses += 1
            return AskAgain()
        case "pause_turn":
            return Finish(
                "error_during_execution", stop, ("the model paused too many times in a row",)
            )
        case _ if rt.output_format is not None and stop != "refusal":
            return structured_from_answer(rt, run, text, stop)
        case _:
            return Finish("success", stop or "end_turn")


def _after_batch(
    rt: Runtime,
    run: RunState,
    calls: list[ToolUseBlock],
    results: list[ToolResultBlock],
    outcome: BatchOutcome,
    work: Work,
) -> Finish | None:
    """Whether the run ends after a batch of tool calls, and how."""
    if work.cancelled or rt.interrupt_event.is_set():
        return INTERRUPTED_BY_USER
    stop_reason = getattr(rt.gate, "stop_reason", None)
    if outcome.interrupt_requested or stop_reason:
        reason = stop_reason or "a permission denial stopped the run"
        return Finish("interrupted", None, (reason,))
    if rt.output_format is not None:
        verdict = structured_after_tools(rt, run, calls, results)
        if isinstance(verdict, Finish):
            return verdict
    if work.failure is not None:
        return Finish("error_during_execution", None, (f"tool execution failed: {work.failure!r}",))
    return None


# --------------------------------------------------------------------------- hooks


def _limit_reached(rt: Runtime, run: RunState) -> Finish | None:
    """Limits checked after every model call against what this run has spent."""
    options = rt.options
    cost = rt.run_totals.cost_usd
    if options.max_budget_usd is not None and cost is not None and cost >= options.max_budget_usd:
        return Finish(
            "error_max_budget_usd",
            None,
            (f"cost ${cost:.4f} reached max_budget_usd ${options.max_budget_usd:.4f}",),
        )
    used = rt.run_totals.usage.input_tokens + rt.run_totals.usage.output_tokens
    if options.task_budget is not None and used >= options.task_budget:
        return Finish(
            "error_max_tokens_budget",
            None,
            (f"{used} tokens used, task_budget is {options.task_budget}",),
        )
    return None


# --------------------------------------------------------------------------- model calls


# --------------------------------------------------------------------------- tools


# --------------------------------------------------------------------------- context


# --------------------------------------------------------------------------- plumbing
