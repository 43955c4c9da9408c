"""One batch of tool calls: the work that runs them under the gate (as its own task, so an
interrupt can stop it), and the turn it leaves — every call answered, by its result or by
why it has none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loopwright.hooks.payloads import notice_messages
from loopwright.loop.guardrail_checks import guard_tools
from loopwright.loop.steps import INTERRUPTED_BY_USER, INTERRUPTED_RESULT, Finish
from loopwright.loop.work import Ended, Outbox
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    Message,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.session.session import Session
from loopwright.tools.base import GateDecision, LoopRequest, ToolContext, ToolGate

if TYPE_CHECKING:
    from loopwright.tools.executor import BatchOutcome


@dataclass(frozen=True, slots=True)
class ToolTurn:
    """The batch's results (one per call, in order), what the gate reported, and whether
    the run must end here."""

    results: list[ToolResultBlock]
    message: UserMessage
    denials: list[dict[str, Any]]
    notices: list[SystemMessage]
    stop: Finish | None  # interrupted, or a denial / hook stopped the run
    failed: Finish | None  # the batch itself broke
    # Calls that wait for approval (by tool_use id; their results above say "not run").
    deferred: dict[str, GateDecision] = field(default_factory=dict[str, GateDecision])
    # What the tools asked of the loop (ToolResult.request), in the model's order.
    requests: tuple[LoopRequest, ...] = ()


class ToolBatch:
    """One batch as work for ``work.Running``: :meth:`run` executes the calls (under
    ``gate``, the agent's by default); :meth:`turn`, read after the work ended, is every
    call's result — kept as calls finish, so an interrupted batch keeps what it has."""

    def __init__(
        self, session: Session, calls: Sequence[ToolUseBlock], gate: ToolGate | None = None
    ) -> None:
        self._session = session
        self._calls = calls
        self._gate = gate or session.agent.gate
        # start-up: the executor loads with the first batch, not before the first request
        from loopwright.tools.executor import BatchOutcome

        self._outcome = BatchOutcome()

    async def run(self, outbox: Outbox) -> None:
        await _execute(
            outbox, session=self._session, calls=self._calls, outcome=self._outcome, gate=self._gate
        )

    def turn(self, ended: Ended[None]) -> ToolTurn:
        session, calls, outcome = self._session, self._calls, self._outcome
        for call_id, deferral in outcome.deferred.items():
            note = f"Not run: it needs a person's approval ({deferral.message})."
            outcome.results.setdefault(call_id, ToolResultBlock(call_id, note, is_error=True))
        results = outcome.ordered(calls, _missing_result(ended, outcome))
        report = session.agent.gate.end_batch()
        return ToolTurn(
            results=results,
            message=UserMessage(list(results), session.agent.parent_tool_use_id),
            denials=outcome.denials,
            notices=notice_messages(report.notices),
            stop=_stop(session, ended, outcome, report.stop_reason),
            failed=_failed(ended),
            deferred=dict(outcome.deferred),
            requests=outcome.ordered_requests(calls),
        )


def close_calls(session: Session, calls: Sequence[ToolUseBlock], reason: str) -> UserMessage:
    """Results for calls that will never run, so no tool_use is left without one."""
    blocks: list[ContentBlock] = [ToolResultBlock(c.id, reason, is_error=True) for c in calls]
    return UserMessage(blocks, session.agent.parent_tool_use_id)


def orphans_closed(session: Session, reason: str = INTERRUPTED_RESULT) -> UserMessage | None:
    """Results for the calls of a last assistant message that never got them (if any)."""
    last = session.conversation.last
    if not isinstance(last, AssistantMessage) or not last.tool_calls:
        return None
    return close_calls(session, last.tool_calls, reason)


async def _execute(
    outbox: Outbox,
    *,
    session: Session,
    calls: Sequence[ToolUseBlock],
    outcome: BatchOutcome,
    gate: ToolGate,
) -> None:
    async def emit(message: Message) -> None:
        outbox.put_nowait(message)

    agent = session.agent

    def make_context(call: ToolUseBlock) -> ToolContext:
        return ToolContext(
            state=session.state,
            tool_use_id=call.id,
            session_id=session.session_id,
            working_dirs=agent.working_dirs,
            emit=emit,
            services=session.services,
            trace_context=session.trace_context,
        )

    from loopwright.session.checkpoints import checkpointed  # start-up: see ToolBatch
    from loopwright.tools.executor import execute  # start-up: see ToolBatch

    # Checkpoints are taken as each editing tool runs: after its permission decision.
    await execute(
        calls,
        checkpointed(guard_tools(agent, agent.active_tools()), session.checkpoints),
        make_context,
        gate,
        outcome,
        default_timeout=agent.options.tool_timeout_seconds,
    )


def _missing_result(ended: Ended[None], outcome: BatchOutcome) -> str:
    """The result of a call that never produced one."""
    if ended.cancelled:
        return INTERRUPTED_RESULT
    if outcome.interrupt_requested:
        return "Not run: an earlier call in this response was denied and the run was stopped."
    return f"Error: the tool call could not be completed: {ended.failure}"


def _stop(
    session: Session, ended: Ended[None], outcome: BatchOutcome, stop_reason: str | None
) -> Finish | None:
    if ended.cancelled or session.interrupted:
        return INTERRUPTED_BY_USER
    if outcome.interrupt_requested or stop_reason:
        return Finish("interrupted", None, (stop_reason or "a permission denial stopped the run",))
    return None


def _failed(ended: Ended[None]) -> Finish | None:
    if ended.failure is None or ended.cancelled:
        return None
    return Finish("error_during_execution", None, (f"tool execution failed: {ended.failure!r}",))
