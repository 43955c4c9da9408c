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
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, assert_never

from loopwright.context.compaction import CompactionError, compact, should_compact
from loopwright.errors import LoopwrightError, ModelError
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    ResultSubtype,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.base import (
    ModelRequest,
    ModelResponse,
    RetryNotice,
    event_to_stream_dict,
)
from loopwright.runtime import Runtime, Totals, init_data
from loopwright.sessions.recorder import CompactTrigger
from loopwright.tools.base import ToolContext
from loopwright.tools.executor import BatchOutcome, execute
from loopwright.tools.structured_output import (
    MAX_STRUCTURED_OUTPUT_RETRIES,
    STRUCTURED_OUTPUT_TOOL_NAME,
    extract_structured,
    reprompt_message,
    structured_from_text,
)

# How often a response cut by max_tokens mid-text is continued before the run ends.
MAX_TEXT_CONTINUATIONS = 3
MAX_CONSECUTIVE_PAUSES = 10
MAX_STOP_HOOK_BLOCKS = 8
DEFAULT_MAX_TOKENS = 8192
CONTINUE_PROMPT = (
    "Your previous response was cut off by the output token limit. Continue exactly where "
    "it stopped, without repeating anything."
)
Outbox = asyncio.Queue[Message | None]
INTERRUPTED_RESULT = "Interrupted: the run was stopped before this tool call finished."


# --------------------------------------------------------------------------- next steps


@dataclass(frozen=True, slots=True)
class Finish:
    subtype: ResultSubtype
    stop_reason: str | None
    errors: tuple[str, ...] = ()
    structured_output: Any = None


@dataclass(frozen=True, slots=True)
class RunTools:
    calls: list[ToolUseBlock]


@dataclass(frozen=True, slots=True)
class AskAgain:
    """Call the model again: after pause_turn, a cut-off text, or a cut-off tool call."""

    follow_up: UserMessage | None = None
    max_tokens: int | None = None
    keep_response: bool = True
    note: str | None = None


NextStep = Finish | RunTools | AskAgain


@dataclass(slots=True)
class RunState:
    """Counters of one run (one prompt), reported in its ResultMessage."""

    started: float = field(default_factory=time.monotonic)
    num_turns: int = 0
    structured_attempts: int = 0
    denials: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    final_text: list[str] = field(default_factory=list[str])
    continuations: int = 0
    pauses: int = 0
    max_tokens_override: int | None = None
    cut_tool_call_retried: bool = False
    reactive_compaction_tried: bool = False
    stop_blocks: int = 0


# --------------------------------------------------------------------------- the loop


async def agent_loop(rt: Runtime, prompt: UserMessage) -> AsyncIterator[Message]:
    """Run one prompt to completion, yielding every message of the run.

    Each message is appended to the session's transcript before it is yielded, so a crash
    at any point loses nothing the consumer has seen.
    """
    turns = _run(rt, prompt)
    try:
        async for message in turns:
            await record(rt, message)
            yield message
    except asyncio.CancelledError:
        # The closing results for calls cut short were added to the history, not yielded.
        last = rt.history[-1] if rt.history else None
        if rt.recorder is not None and last is not None and last.uuid != rt.recorder.last_uuid:
            await record(rt, last)
        raise
    finally:
        await turns.aclose()


async def record(rt: Runtime, message: Message) -> None:
    """Append to the transcript; at each turn end also snapshot state and sync to disk."""
    if rt.recorder is None or isinstance(message, StreamEvent):
        return
    await rt.recorder.message(message)
    turn_ended = isinstance(message, ResultMessage) or (
        isinstance(message, UserMessage)
        and message.parent_tool_use_id is None
        and any(isinstance(b, ToolResultBlock) for b in message.blocks)
    )
    if turn_ended:
        await rt.recorder.state(rt.snapshot())
        await rt.recorder.sync()


async def _run(rt: Runtime, prompt: UserMessage) -> AsyncGenerator[Message, None]:
    run = RunState()
    rt.run_totals = Totals()
    rt.interrupt_event.clear()
    yield SystemMessage("init", init_data(rt))
    for notice in rt.pending_notices:
        yield notice
    rt.pending_notices.clear()
    manual_focus = _manual_compact_focus(prompt)
    if manual_focus is not None:
        async for message in _manual_compact(rt, run, manual_focus):
            yield message
        return
    prompt, blocked, notices = await _submit_prompt(rt, prompt)
    for message in notices:
        yield message
    if blocked is not None:
        yield _result(rt, run, blocked)
        return
    rt.history.append(prompt)
    yield prompt
    try:
        while True:
            if rt.interrupt_event.is_set():
                yield _result(rt, run, Finish("interrupted", None, ("interrupted by the user",)))
                return
            for message in await _compact_if_needed(rt, run):
                yield message

            request = _request(rt, run)
            response_box: list[ModelResponse] = []
            work = _Work(
                partial(_ask_model, rt=rt, run=run, request=request, response_box=response_box)
            )
            async for message in _drain(rt, work):
                yield message
            if not response_box:
                if _context_exceeded(work) and not run.reactive_compaction_tried:
                    run.reactive_compaction_tried = True
                    for message in await _compact_if_needed(rt, run, forced=True):
                        yield message
                    continue
                yield _result(rt, run, _failed_model_call(rt, work))
                return
            response = response_box[0]
            rt.add_usage(response.model, response.usage)

            step = _next_step(rt, run, response)
            assistant = _assistant_message(rt, response)
            if not (isinstance(step, AskAgain) and not step.keep_response):
                rt.history.append(assistant)
                rt.meter.record(response.usage, rt.history)
                yield assistant

            limit = _limit_reached(rt, run)
            if limit is not None:
                if isinstance(step, RunTools):
                    yield _close_calls(rt, step.calls, f"Not run: the run ended ({limit.subtype}).")
                yield _result(rt, run, limit)
                return
            if isinstance(step, Finish) and step.subtype == "success":
                step, notices = await _stop_hook(rt, run, step)
                for message in notices:
                    yield message

            match step:
                case Finish():
                    yield _result(rt, run, step)
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
                        yield _close_calls(
                            rt, calls, "Not run: the maximum number of turns was reached."
                        )
                        yield _result(rt, run, Finish("error_max_turns", "tool_use"))
                        return
                    run.num_turns += 1
                    rt.num_turns_total += 1
                    run.final_text.clear()
                    outcome = BatchOutcome()
                    work = _Work(partial(_run_tools, rt=rt, calls=calls, outcome=outcome))
                    async for message in _drain(rt, work):
                        yield message
                    results = outcome.ordered(calls, _missing_result(work))
                    run.denials.extend(outcome.denials)
                    tool_results = UserMessage(list(results), rt.parent_tool_use_id)
                    rt.history.append(tool_results)
                    yield tool_results
                    for message in rt.gate_messages():
                        yield message
                    ending = _after_batch(rt, run, calls, results, outcome, work)
                    if ending is not None:
                        yield _result(rt, run, ending)
                        return
                case _:
                    assert_never(step)
    except (LoopwrightError, OSError, ValueError) as exc:
        yield _result(
            rt, run, Finish("error_during_execution", None, (f"{type(exc).__name__}: {exc}",))
        )
    except asyncio.CancelledError:
        # The consumer's task was cancelled: still answer every tool call in the history so
        # the session can be resumed, then let the cancellation through.
        _answer_orphans(rt)
        raise


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
            return _structured_from_answer(rt, run, text, stop)
        case _:
            return Finish("success", stop or "end_turn")


def _missing_result(work: _Work) -> str:
    if work.cancelled:
        return INTERRUPTED_RESULT
    return f"Error: the tool call could not be completed: {work.failure}"


def _after_batch(
    rt: Runtime,
    run: RunState,
    calls: list[ToolUseBlock],
    results: list[ToolResultBlock],
    outcome: BatchOutcome,
    work: _Work,
) -> Finish | None:
    """Whether the run ends after a batch of tool calls, and how."""
    if work.cancelled or rt.interrupt_event.is_set():
        return Finish("interrupted", None, ("interrupted by the user",))
    if outcome.interrupt_requested:
        reason = getattr(rt.gate, "stop_reason", None) or "a permission denial stopped the run"
        return Finish("interrupted", None, (reason,))
    if rt.output_format is not None:
        verdict = _structured_after_tools(rt, run, calls, results)
        if isinstance(verdict, Finish):
            return verdict
    if work.failure is not None:
        return Finish("error_during_execution", None, (f"tool execution failed: {work.failure!r}",))
    return None


# --------------------------------------------------------------------------- hooks


async def _submit_prompt(
    rt: Runtime, prompt: UserMessage
) -> tuple[UserMessage, Finish | None, list[Message]]:
    """SessionStart (first prompt only) and UserPromptSubmit: a hook may add context to
    the prompt, or block it."""
    notices: list[Message] = []
    context: list[str] = []
    if not rt.started:
        rt.started = True
        source = "resume" if rt.history else "startup"
        outcome, shown = await rt.fire_hook("SessionStart", match_value=source, source=source)
        notices += shown
        if outcome is not None and outcome.additional_context:
            context.append(outcome.additional_context)
    text = (
        prompt.content
        if isinstance(prompt.content, str)
        else "\n".join(b.text for b in prompt.blocks if isinstance(b, TextBlock))
    )
    outcome, shown = await rt.fire_hook("UserPromptSubmit", prompt=text)
    notices += shown
    if outcome is not None and (outcome.blocked or not outcome.continue_):
        reason = outcome.reason or outcome.stop_reason or "no reason given"
        return (
            prompt,
            Finish(
                "error_during_execution", None, (f"the prompt was blocked by a hook: {reason}",)
            ),
            notices,
        )
    if outcome is not None and outcome.additional_context:
        context.append(outcome.additional_context)
    if context:
        blocks = [*prompt.blocks, *(TextBlock(c) for c in context)]
        prompt = UserMessage(blocks, prompt.parent_tool_use_id, prompt.uuid)
    return prompt, None, notices


async def _stop_hook(rt: Runtime, run: RunState, finish: Finish) -> tuple[NextStep, list[Message]]:
    """A Stop hook that blocks sends its reason back to the model and the run goes on."""
    event = "SubagentStop" if rt.parent_tool_use_id else "Stop"
    active = run.stop_blocks > 0
    outcome, notices = await rt.fire_hook(event, stop_hook_active=active)
    if outcome is None or not outcome.blocked:
        run.stop_blocks = 0
        return finish, notices
    if run.stop_blocks >= MAX_STOP_HOOK_BLOCKS:
        notices.append(
            SystemMessage(
                "informational",
                {"message": f"{event} hooks blocked {MAX_STOP_HOOK_BLOCKS} times in a row; ending"},
            )
        )
        return finish, notices
    run.stop_blocks += 1
    run.final_text.clear()  # that answer was not the last word
    reason = outcome.reason or "A Stop hook asked you to keep going."
    return AskAgain(UserMessage(reason, rt.parent_tool_use_id)), notices


def _structured_from_answer(rt: Runtime, run: RunState, text: str, stop: str | None) -> NextStep:
    """The model ended without calling StructuredOutput: accept a valid JSON answer, else
    ask again, at most MAX_STRUCTURED_OUTPUT_RETRIES times."""
    assert rt.output_format is not None
    value, errors = structured_from_text(rt.output_format, text)
    if not errors:
        return Finish("success", stop or "end_turn", structured_output=value)
    return _structured_retry(rt, run, None)


def _structured_retry(rt: Runtime, run: RunState, errors: list[str] | None) -> NextStep:
    run.structured_attempts += 1
    if run.structured_attempts > MAX_STRUCTURED_OUTPUT_RETRIES:
        return Finish(
            "error_max_structured_output_retries",
            None,
            (
                f"no valid structured output after {MAX_STRUCTURED_OUTPUT_RETRIES} retries",
                *(errors or ()),
            ),
        )
    follow_up = reprompt_message(errors, run.structured_attempts)
    return AskAgain(UserMessage(follow_up, rt.parent_tool_use_id) if errors is None else None)


def _structured_after_tools(
    rt: Runtime, run: RunState, calls: list[ToolUseBlock], results: list[ToolResultBlock]
) -> NextStep | None:
    """After a batch: a successful StructuredOutput call ends the run with its value."""
    assert rt.output_format is not None
    for call, result in zip(calls, results, strict=True):
        if call.name != STRUCTURED_OUTPUT_TOOL_NAME:
            continue
        value, errors = extract_structured(rt.output_format, call.input)
        if not result.is_error and not errors:
            return Finish("success", "tool_use", structured_output=value)
        # The error result already told the model what to fix; count the attempt.
        step = _structured_retry(rt, run, errors or [result.text])
        return step if isinstance(step, Finish) else None
    return None


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


def _failed_model_call(rt: Runtime, work: _Work) -> Finish:
    if work.cancelled or rt.interrupt_event.is_set():
        return Finish("interrupted", None, ("interrupted by the user",))
    failure = work.failure
    if isinstance(failure, ModelError):
        return Finish("error_during_execution", None, (f"model error ({failure.kind}): {failure}",))
    if failure is None:
        return Finish(
            "error_during_execution",
            None,
            ("the model's stream ended without a complete response",),
        )
    return Finish("error_during_execution", None, (f"{type(failure).__name__}: {failure}",))


def _request(rt: Runtime, run: RunState) -> ModelRequest:
    options = rt.options
    return ModelRequest(
        model=rt.model.name,
        system=rt.system_prompt,
        messages=list(rt.history),
        tools=rt.tool_specs,
        max_tokens=run.max_tokens_override or options.max_tokens,
        effort=options.effort,
        thinking=rt.thinking(),
        task_budget=options.task_budget,
        cache_prefix_chars=len(rt.system_prompt),
        metadata={"cwd": str(rt.state.cwd), "session_id": rt.session_id},
    )


async def _ask_model(
    outbox: Outbox,
    *,
    rt: Runtime,
    run: RunState,
    request: ModelRequest,
    response_box: list[ModelResponse],
) -> None:
    """Stream one response; deltas and retry notices go to the outbox as they arrive."""
    partial = rt.options.include_partial_messages
    started = time.monotonic()
    try:
        async for event in rt.model.stream(request):
            if isinstance(event, ModelResponse):
                response_box.append(event)
            elif isinstance(event, RetryNotice):
                outbox.put_nowait(
                    SystemMessage(
                        "api_retry",
                        {
                            "attempt": event.attempt,
                            "max_retries": event.max_retries,
                            "retry_delay_ms": int(event.delay_seconds * 1000),
                            "error_status": event.status_code,
                            "error": event.error,
                        },
                    )
                )
            elif partial:
                payload = event_to_stream_dict(event)
                if payload is not None:
                    outbox.put_nowait(
                        StreamEvent(payload, rt.session_id, rt.parent_tool_use_id, event.raw)
                    )
    finally:
        spent = time.monotonic() - started
        rt.totals.api_seconds += spent
        rt.run_totals.api_seconds += spent


def _assistant_message(rt: Runtime, response: ModelResponse) -> AssistantMessage:
    return AssistantMessage(
        content=list(response.content),
        model=response.model,
        usage=response.usage,
        stop_reason=response.stop_reason,
        message_id=response.message_id,
        parent_tool_use_id=rt.parent_tool_use_id,
    )


# --------------------------------------------------------------------------- tools


async def _run_tools(
    outbox: Outbox, *, rt: Runtime, calls: list[ToolUseBlock], outcome: BatchOutcome
) -> None:
    async def emit(message: Message) -> None:
        outbox.put_nowait(message)

    def make_context(call: ToolUseBlock) -> ToolContext:
        return ToolContext(
            state=rt.state,
            tool_use_id=call.id,
            session_id=rt.session_id,
            working_dirs=rt.working_dirs,
            emit=emit,
            services=rt.services,
        )

    await execute(
        calls,
        rt.active_tools(),
        make_context,
        rt.gate,
        outcome,
        default_timeout=rt.options.tool_timeout_seconds,
    )


def _close_calls(rt: Runtime, calls: Sequence[ToolUseBlock], reason: str) -> UserMessage:
    """Answer calls that will never run, so no tool_use is left without a result."""
    message = UserMessage(
        [ToolResultBlock(c.id, reason, is_error=True) for c in calls], rt.parent_tool_use_id
    )
    rt.history.append(message)
    return message


def _answer_orphans(rt: Runtime) -> None:
    if not rt.history or not isinstance(rt.history[-1], AssistantMessage):
        return
    calls = rt.history[-1].tool_calls
    if calls:
        _close_calls(rt, calls, INTERRUPTED_RESULT)


# --------------------------------------------------------------------------- context


def _manual_compact_focus(prompt: UserMessage) -> str | None:
    """``/compact [focus]`` as a prompt asks for a compaction instead of an answer."""
    if not isinstance(prompt.content, str):
        return None
    text = prompt.content.strip()
    if text != "/compact" and not text.startswith("/compact "):
        return None
    return text[len("/compact") :].strip()


async def _manual_compact(rt: Runtime, run: RunState, focus: str) -> AsyncIterator[Message]:
    try:
        messages = await _compact(rt, run, "manual", focus or None)
    except CompactionError as exc:
        yield _result(
            rt, run, Finish("error_during_execution", None, (f"compaction failed: {exc}",))
        )
        return
    for message in messages:
        yield message
    run.final_text.append("Conversation compacted.")
    yield _result(rt, run, Finish("success", "end_turn"))


async def _compact_if_needed(rt: Runtime, run: RunState, *, forced: bool = False) -> list[Message]:
    """Auto-compaction before a request, when the context passes the threshold."""
    tokens = rt.meter.count(rt.history, system=rt.system_prompt, tools=rt.tool_specs).tokens
    due = forced or should_compact(tokens, rt.window, rt.compaction.threshold)
    if not due or not rt.breaker.allow():
        return []
    try:
        messages = await _compact(rt, run, "auto", None, pre_tokens=tokens)
    except CompactionError as exc:
        rt.breaker.record_failure(exc)
        note = rt.breaker.describe() if rt.breaker.open else f"auto-compaction failed: {exc}"
        return [SystemMessage("informational", {"message": note})]
    rt.breaker.record_success()
    return messages


async def _compact(
    rt: Runtime,
    run: RunState,
    trigger: CompactTrigger,
    focus: str | None,
    *,
    pre_tokens: int | None = None,
) -> list[Message]:
    outcome, notices = await rt.fire_hook(
        "PreCompact", match_value=trigger, trigger=trigger, custom_instructions=focus or ""
    )
    if outcome is not None and outcome.blocked:
        reason = outcome.reason or "no reason given"
        return [
            *notices,
            SystemMessage(
                "informational",
                {"message": f"compaction skipped: a PreCompact hook blocked it ({reason})"},
            ),
        ]
    result = await compact(
        rt.history,
        rt.model,
        window=rt.window,
        trigger=trigger,
        settings=rt.compaction,
        focus=focus,
        system=rt.system_prompt,
        tools=rt.tool_specs,
        pre_tokens=pre_tokens,
    )
    rt.history[:] = result.messages
    rt.meter.reset()
    if result.model:
        rt.add_usage(result.model, result.usage)
    if rt.recorder is not None and result.stage == "summarised":
        await rt.recorder.compaction(
            result.messages,
            trigger=trigger,
            pre_tokens=result.pre_tokens,
            post_tokens=result.post_tokens,
            summary=result.summary,
            usage=result.usage,
            model=result.model,
        )
    return [*notices, SystemMessage("compact_boundary", result.boundary_data())]


def _context_exceeded(work: _Work) -> bool:
    return isinstance(work.failure, ModelError) and work.failure.kind == "context_window_exceeded"


# --------------------------------------------------------------------------- plumbing


class _Work:
    """A coroutine to run as its own task, and how that task ended."""

    def __init__(self, start: Callable[[Outbox], Coroutine[Any, Any, None]]) -> None:
        self.start = start
        self.cancelled = False
        self.failure: BaseException | None = None


async def _drain(rt: Runtime, work: _Work) -> AsyncIterator[Message]:
    """Run the work as a task and yield what it puts in the outbox until it ends.

    The work runs in its own task so that ``interrupt()`` can cancel it without
    cancelling the consumer, and so that tools (subagents) can stream messages out
    while they run.
    """
    outbox: Outbox = asyncio.Queue()  # one per task: no stale end marker can leak
    task = asyncio.create_task(work.start(outbox))
    rt.current_work = task
    task.add_done_callback(lambda _: outbox.put_nowait(None))
    try:
        while (item := await outbox.get()) is not None:
            yield item
    finally:
        rt.current_work = None
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    if task.cancelled():
        work.cancelled = True
    else:
        work.failure = task.exception()


def _result_text(run: RunState, finish: Finish) -> str:
    text = "".join(run.final_text)
    if not text and finish.structured_output is not None:
        return json.dumps(finish.structured_output, ensure_ascii=False)
    return text


def _result(rt: Runtime, run: RunState, finish: Finish) -> ResultMessage:
    elapsed_ms = int((time.monotonic() - run.started) * 1000)
    success = finish.subtype == "success"
    return ResultMessage(
        subtype=finish.subtype,
        is_error=not success,
        num_turns=run.num_turns,
        session_id=rt.session_id,
        duration_ms=elapsed_ms,
        duration_api_ms=int(rt.run_totals.api_seconds * 1000),
        total_cost_usd=rt.run_totals.cost_usd,
        usage=rt.run_totals.usage,
        result=_result_text(run, finish) if success else None,
        structured_output=finish.structured_output,
        model_usage=rt.run_totals.model_usage,
        stop_reason=finish.stop_reason,
        permission_denials=list(run.denials),
        errors=list(finish.errors),
    )
