"""Runs the tool calls of one model response.

All calls are validated first (unknown tool, arguments that are not JSON, arguments too
deep or too large or holding NUL bytes — see ``input_checks`` — and schema violations), so a
bad call never leaves a good one half-run and nothing downstream sees such input. The
permission gate fails closed: a check that raises denies the call with the reason.
Consecutive read-only calls run concurrently (at most ten at a time); mutating calls run one
at a time in the model's order. Every call gets exactly one result, in the model's order,
whatever happens. What a tool asks of the loop (``ToolResult.request``) is kept beside the
results, by call, for the tool turn; a ``StopBatch`` runs no call after it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright import telemetry
from loopwright.errors import ToolInputError
from loopwright.messages import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from loopwright.tools.base import (
    GateDecision,
    LoopRequest,
    Tool,
    ToolContext,
    ToolGate,
    ToolResult,
    timeout_of,
)
from loopwright.tools.input_checks import input_problem, raw_input_problem
from loopwright.tools.output_text import sendable
from loopwright.tools.results import StopBatch
from loopwright.tools.spill import spill_text

MAX_PARALLEL_READ_ONLY = 10
# Past this many characters a tool's text is cut and the whole output kept in a file.
MAX_RESULT_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class Prepared:
    call: ToolUseBlock
    tool: Tool
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rejected:
    call: ToolUseBlock
    message: str


@dataclass(slots=True)
class BatchOutcome:
    """Results keyed by tool_use id, filled in as calls finish (read on interrupt too)."""

    results: dict[str, ToolResultBlock] = field(default_factory=dict[str, ToolResultBlock])
    interrupt_requested: bool = False
    denials: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    # Calls the gate deferred (they wait for a person's approval), by tool_use id.
    deferred: dict[str, GateDecision] = field(default_factory=dict[str, GateDecision])
    # What tools asked of the loop (ToolResult.request), by tool_use id.
    requests: dict[str, LoopRequest] = field(default_factory=dict[str, LoopRequest])
    # Why the rest of the batch was not run, once a tool asked for that (StopBatch).
    stopped_by_tool: str | None = None

    def ordered(self, calls: Sequence[ToolUseBlock], missing_reason: str) -> list[ToolResultBlock]:
        return [
            self.results.get(c.id) or ToolResultBlock(c.id, missing_reason, is_error=True)
            for c in calls
        ]

    def ordered_requests(self, calls: Sequence[ToolUseBlock]) -> tuple[LoopRequest, ...]:
        """The tools' requests in the model's order of the calls."""
        return tuple(self.requests[c.id] for c in calls if c.id in self.requests)


def prepare(call: ToolUseBlock, tools: Mapping[str, Tool]) -> Prepared | Rejected:
    """Check one call before anything runs."""
    tool = tools.get(call.name)
    if tool is None:
        available = ", ".join(sorted(tools)) or "none"
        return Rejected(call, f"Error: no tool named {call.name!r}. Available tools: {available}.")
    if call.raw_input is not None:
        too_deep = raw_input_problem(call.name, call.raw_input)
        if too_deep is not None:
            return Rejected(call, too_deep)
        shown = call.raw_input if len(call.raw_input) <= 500 else call.raw_input[:500] + "…"
        return Rejected(
            call,
            f"Error: the arguments for {call.name} were not a valid JSON object: {shown}. "
            "Send the arguments again as one JSON object matching the tool's schema.",
        )
    problem = input_rejection(tool, call.name, call.input)
    if problem is not None:
        return Rejected(call, problem)
    return Prepared(call, tool, call.input)


def input_rejection(tool: Tool, name: str, input: dict[str, Any]) -> str | None:
    """Why ``input`` cannot be given to ``tool`` (a message for the model), or None."""
    # Before anything walks the input (the schema validator, hooks, permission checks).
    problem = input_problem(name, input)
    if problem is not None:
        return problem
    # Deferred: keeps start-up fast; loaded once, by the first tool call.
    from jsonschema import SchemaError, exceptions

    try:
        validator = _validator(tool.input_schema)
    except SchemaError as exc:
        return f"Error: tool {name} has an invalid input schema: {exc.message}"
    if validator.is_valid(input):  # the common case, without building error objects
        return None
    error = exceptions.best_match(validator.iter_errors(input))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "input"
    return (
        f"Error: invalid arguments for {name} at {where}: {error.message}; send the call "
        "again with arguments that match the tool's input schema"
    )


# Compiled validators by schema identity; the schema is kept so its id cannot be reused.
# Bounded (least recently used goes first): tools made per session (MCP servers, compat
# layers) bring new schema objects, and a process serving sessions for days must not keep
# one validator per session. Wrappers pass on the wrapped schema object (ToolWrapper), so
# a session's tools hit the same entries call after call.
MAX_CACHED_VALIDATORS = 256
_VALIDATORS: OrderedDict[int, tuple[dict[str, Any], Any]] = OrderedDict()


def _validator(schema: dict[str, Any]) -> Any:
    key = id(schema)
    cached = _VALIDATORS.get(key)
    if cached is not None and cached[0] is schema:
        _VALIDATORS.move_to_end(key)
        return cached[1]
    from jsonschema import validators

    validator_class = validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    _VALIDATORS[key] = (schema, validator)
    _VALIDATORS.move_to_end(key)
    while len(_VALIDATORS) > MAX_CACHED_VALIDATORS:
        _VALIDATORS.popitem(last=False)
    return validator


def cached_validators() -> int:
    """How many compiled validators the cache holds (for soak tests and benchmarks)."""
    return len(_VALIDATORS)


def batches(prepared: Sequence[Prepared]) -> list[list[Prepared]]:
    """Consecutive read-only calls share a batch; each mutating call is alone."""
    grouped: list[list[Prepared]] = []
    for item in prepared:
        if item.tool.read_only and grouped and grouped[-1][0].tool.read_only:
            grouped[-1].append(item)
        else:
            grouped.append([item])
    return grouped


async def execute(
    calls: Sequence[ToolUseBlock],
    tools: Mapping[str, Tool],
    make_context: Callable[[ToolUseBlock], ToolContext],
    gate: ToolGate,
    outcome: BatchOutcome,
    *,
    default_timeout: float,
) -> None:
    """Run ``calls``, writing each result into ``outcome`` as soon as it exists."""
    checked = [prepare(call, tools) for call in calls]
    runnable: list[Prepared] = []
    for item in checked:
        if isinstance(item, Rejected):
            outcome.results[item.call.id] = ToolResultBlock(item.call.id, item.message, True)
        else:
            runnable.append(item)
    limiter = asyncio.Semaphore(MAX_PARALLEL_READ_ONLY)
    for batch in batches(runnable):
        if outcome.interrupt_requested or outcome.stopped_by_tool is not None:
            break
        approved: list[tuple[Prepared, GateDecision, ToolContext]] = []
        for item in batch:
            ctx = make_context(item.call)
            ctx.earlier_requests = outcome.ordered_requests(calls)
            decision = await checked_decision(gate, item, ctx)
            if decision.deferred:
                outcome.deferred[item.call.id] = decision
                continue
            if not decision.allowed:
                outcome.results[item.call.id] = ToolResultBlock(
                    item.call.id, decision.message or "Permission denied.", is_error=True
                )
                outcome.denials.append(
                    {
                        "tool_name": item.call.name,
                        "tool_use_id": item.call.id,
                        "tool_input": item.input,
                    }
                )
                if decision.interrupt:
                    outcome.interrupt_requested = True
                    break
                continue
            approved.append((item, decision, ctx))
        await asyncio.gather(
            *(_run_one(p, d, c, gate, limiter, outcome, default_timeout) for p, d, c in approved)
        )
    if outcome.stopped_by_tool is not None:
        _answer_stopped(runnable, outcome, outcome.stopped_by_tool)


def _answer_stopped(runnable: Sequence[Prepared], outcome: BatchOutcome, reason: str) -> None:
    note = f"Not run: an earlier call stopped the rest of this response ({reason})."
    for item in runnable:
        call_id = item.call.id
        if call_id not in outcome.results and call_id not in outcome.deferred:
            outcome.results[call_id] = ToolResultBlock(call_id, note, is_error=True)


async def checked_decision(gate: ToolGate, item: Prepared, ctx: ToolContext) -> GateDecision:
    """The gate's decision, failing closed: a check that raises denies the call.

    An input a hook or callback rewrote is held to the same limits and schema as the
    model's.
    """
    try:
        decision = await gate.before(item.tool, item.input, ctx)
    except Exception as exc:  # a check that cannot decide must not allow, nor end the run
        return GateDecision(
            False,
            item.input,
            message=(
                f"Permission to use {item.tool.name} was denied: the permission check "
                f"failed on this input ({type(exc).__name__}: {exc}), so the call was not "
                "run. Check the arguments (paths, patterns, commands) and send a corrected call."
            ),
        )
    if decision.allowed and decision.input is not item.input:
        problem = input_rejection(item.tool, item.call.name, decision.input)
        if problem is not None:
            message = f"{problem} (The input was rewritten by a hook or can_use_tool.)"
            return GateDecision(False, decision.input, message=message)
    return decision


async def _run_one(
    item: Prepared,
    decision: GateDecision,
    ctx: ToolContext,
    gate: ToolGate,
    limiter: asyncio.Semaphore,
    outcome: BatchOutcome,
    default_timeout: float,
) -> None:
    async with limiter:
        result = await invoke(item.tool, decision.input, ctx, default_timeout)
        # The tool's own request: what PostToolUse does to the result cannot drop it.
        if result.request is not None:
            outcome.requests[item.call.id] = result.request
            if isinstance(result.request, StopBatch):
                outcome.stopped_by_tool = result.request.reason
        try:
            result = await gate.after(item.tool, decision.input, result, ctx)
        except Exception as exc:  # the tool ran: the model must still learn its result
            result = ToolResult.error(
                f"{_result_text(result)}\n\nError: {item.tool.name} ran, but processing its "
                f"result afterwards (PostToolUse) failed: {type(exc).__name__}: {exc}. Its "
                "output is above; do not run it again for this"
            )
    block = to_result_block(
        item.call.id, result, decision.additional_context, session_id=ctx.session_id
    )
    outcome.results[item.call.id] = block


async def invoke(
    tool: Tool, input: dict[str, Any], ctx: ToolContext, default_timeout: float
) -> ToolResult:
    """Call a tool; exceptions and timeouts become error results the model can act on."""
    attributes = {
        telemetry.OPERATION: "execute_tool",
        telemetry.TOOL_NAME: tool.name,
        telemetry.TOOL_CALL_ID: ctx.tool_use_id,
        telemetry.TOOL_TYPE: "function",
        "loopwright.tool": tool.name,
        "loopwright.tool_use_id": ctx.tool_use_id,
    }
    span_name = telemetry.tool_span_name(tool.name)
    with telemetry.child_span(span_name, ctx.trace_context, attributes) as span:
        result = await _invoke(tool, input, ctx, default_timeout)
        telemetry.annotate(
            span,
            {"loopwright.is_error": result.is_error},
            error=telemetry.TOOL_ERROR_STATUS if result.is_error else None,
        )
        return result


def _result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "\n".join(b.text for b in result.content if isinstance(b, TextBlock))


async def _invoke(
    tool: Tool, input: dict[str, Any], ctx: ToolContext, default_timeout: float
) -> ToolResult:
    timeout = timeout_of(tool) or default_timeout
    try:
        async with asyncio.timeout(timeout):
            return await tool.call(input, ctx)
    except TimeoutError:
        return ToolResult.error(
            f"Error: {tool.name} did not finish within {timeout:g} s and was stopped."
        )
    except ToolInputError as exc:
        return ToolResult.error(f"Error: {tool.name}: {exc}")
    except Exception as exc:  # a tool bug must reach the model, not end the run
        return ToolResult.error(f"Error: {tool.name} failed: {type(exc).__name__}: {exc}")


def to_result_block(
    tool_use_id: str,
    result: ToolResult,
    additional_context: str | None = None,
    *,
    session_id: str = "",
) -> ToolResultBlock:
    content = result.content
    if isinstance(content, str):
        content = _cap_text(sendable(content), session_id)
        if additional_context:
            content = f"{content}\n\n{sendable(additional_context)}"
        return ToolResultBlock(tool_use_id, content, result.is_error)
    blocks: list[TextBlock | ImageBlock] = [
        TextBlock(_cap_text(sendable(b.text), session_id)) if isinstance(b, TextBlock) else b
        for b in content
    ]
    if additional_context:
        blocks.append(TextBlock(sendable(additional_context)))
    return ToolResultBlock(tool_use_id, blocks, result.is_error)


def _cap_text(text: str, session_id: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    saved = spill_text(session_id, text)
    kept = text[:MAX_RESULT_CHARS]
    return (
        f"{kept}\n\n[output cut: {len(text) - MAX_RESULT_CHARS} more characters; "
        f"the full output is in {saved}]"
    )
