"""How the loop talks to the model and the tools.

Model calls and tool batches run as their own tasks (so ``interrupt()`` can cancel them
without cancelling the consumer); what they produce meanwhile — deltas, retry notices,
subagent messages — reaches the stream through an outbox.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from loopwright import telemetry
from loopwright.errors import ModelError
from loopwright.loop.agents import guard_tools
from loopwright.loop.steps import INTERRUPTED_BY_USER, INTERRUPTED_RESULT, Finish, RunState
from loopwright.messages import (
    AssistantMessage,
    Message,
    StreamEvent,
    SystemMessage,
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
from loopwright.session.checkpoints import FILE_CHECKPOINTS_SERVICE, FileCheckpoints
from loopwright.session.runtime import Runtime
from loopwright.tools.base import ToolContext
from loopwright.tools.executor import BatchOutcome, execute

Outbox = asyncio.Queue[Message | None]


T = TypeVar("T")


class Work:
    """A coroutine to run as its own task, and how that task ended."""

    def __init__(self, start: Callable[[Outbox], Coroutine[Any, Any, None]]) -> None:
        self.start = start
        self.cancelled = False
        self.failure: BaseException | None = None


async def drain(rt: Runtime, work: Work) -> AsyncIterator[Message]:
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


def failed_model_call(rt: Runtime, work: Work) -> Finish:
    if work.cancelled or rt.interrupt_event.is_set():
        return INTERRUPTED_BY_USER
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


def build_request(rt: Runtime, run: RunState) -> ModelRequest:
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
        settings=options.model_settings,
        server_tools=tuple(options.server_tools),
    )


async def ask_model(
    outbox: Outbox,
    *,
    rt: Runtime,
    run: RunState,
    request: ModelRequest,
    response_box: list[ModelResponse],
) -> None:
    """Stream one response; deltas and retry notices go to the outbox as they arrive."""
    started = time.monotonic()
    attributes = {
        telemetry.OPERATION: "chat",
        telemetry.PROVIDER: telemetry.provider_name(rt.model),
        telemetry.REQUEST_MODEL: rt.model.name,
        telemetry.REQUEST_MAX_TOKENS: request.max_tokens,
        telemetry.CONVERSATION_ID: rt.session_id,
        "loopwright.model": rt.model.name,
        "loopwright.messages": len(request.messages),
    }
    span_name = telemetry.chat_span_name(rt.model.name)
    with telemetry.child_span(span_name, rt.trace_context, attributes, "client") as span:
        try:
            await _stream_into(outbox, rt, request, response_box)
        finally:
            rt.add_api_seconds(time.monotonic() - started)
        if response_box:
            response = response_box[0]
            telemetry.annotate(
                span,
                {
                    telemetry.RESPONSE_MODEL: response.model or rt.model.name,
                    telemetry.RESPONSE_ID: response.message_id,
                    telemetry.FINISH_REASONS: [response.stop_reason or "unknown"],
                    telemetry.INPUT_TOKENS: response.usage.input_tokens,
                    telemetry.OUTPUT_TOKENS: response.usage.output_tokens,
                    telemetry.CACHE_READ_TOKENS: response.usage.cache_read_input_tokens,
                    telemetry.CACHE_CREATION_TOKENS: response.usage.cache_creation_input_tokens,
                    "loopwright.stop_reason": response.stop_reason,
                    "loopwright.input_tokens": response.usage.input_tokens,
                    "loopwright.output_tokens": response.usage.output_tokens,
                    "loopwright.cache_read_tokens": response.usage.cache_read_input_tokens,
                },
            )


async def _stream_into(
    outbox: Outbox, rt: Runtime, request: ModelRequest, response_box: list[ModelResponse]
) -> None:
    partial = rt.options.include_partial_messages
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


def assistant_message(rt: Runtime, response: ModelResponse) -> AssistantMessage:
    return AssistantMessage(
        content=list(response.content),
        model=response.model,
        usage=response.usage,
        stop_reason=response.stop_reason,
        message_id=response.message_id,
        parent_tool_use_id=rt.parent_tool_use_id,
    )


async def run_tools(
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

    checkpoints = rt.services.get(FILE_CHECKPOINTS_SERVICE)
    if isinstance(checkpoints, FileCheckpoints):
        for call in calls:
            checkpoints.before_tool(call.name, call.input, rt.state.cwd)
    await execute(
        calls,
        guard_tools(rt, rt.active_tools()),
        make_context,
        rt.gate,
        outcome,
        default_timeout=rt.options.tool_timeout_seconds,
    )


def close_calls(rt: Runtime, calls: Sequence[ToolUseBlock], reason: str) -> UserMessage:
    """Answer calls that will never run, so no tool_use is left without a result."""
    message = UserMessage(
        [ToolResultBlock(c.id, reason, is_error=True) for c in calls], rt.parent_tool_use_id
    )
    rt.history.append(message)
    return message


def answer_orphans(rt: Runtime, reason: str = INTERRUPTED_RESULT) -> UserMessage | None:
    """Close the calls of a last assistant message that never got results (if any)."""
    if not rt.history or not isinstance(rt.history[-1], AssistantMessage):
        return None
    calls = rt.history[-1].tool_calls
    return close_calls(rt, calls, reason) if calls else None


def context_exceeded(work: Work) -> bool:
    return isinstance(work.failure, ModelError) and work.failure.kind == "context_window_exceeded"


def missing_result(work: Work, outcome: BatchOutcome) -> str:
    """The result of a call that never produced one."""
    if work.cancelled:
        return INTERRUPTED_RESULT
    if outcome.interrupt_requested:
        return "Not run: an earlier call in this response was denied and the run was stopped."
    return f"Error: the tool call could not be completed: {work.failure}"


async def interruptible(rt: Runtime, coroutine: Coroutine[Any, Any, T]) -> T | None:
    """Await work that ``interrupt()`` may cancel; None when it was interrupted.

    A cancellation of the consumer itself still propagates.
    """
    task = asyncio.ensure_future(coroutine)
    rt.current_work = task
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if (
            task.cancelled()
            and rt.interrupt_event.is_set()
            and not (current is not None and current.cancelling())
        ):
            return None
        raise
    finally:
        rt.current_work = None
