"""Deferred approvals in the loop: a batch whose calls wait for a person ends the run, and
a later run (any process) answers them, runs what was approved and goes on.

A deferred batch leaves no tool_result message: the transcript gets a pending record
(``stores.approvals``) holding the results of the calls that did run, and the run ends
``pending_approval``. The next run of the session settles the batch before anything else:
the answers are recorded first (so no call ever runs twice), the approved calls run under
an :class:`ApprovalGate`, and once no call waits the batch's one tool_result message is
appended and the model is asked again.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

from loopwright.loop.guardrail_checks import tool_ended
from loopwright.loop.handoffs import apply_handoff
from loopwright.loop.steps import Ask, Finish, Prompt, RunTools, Settling, Then
from loopwright.loop.tool_turn import ToolTurn
from loopwright.messages import AssistantMessage, ContentBlock, Message, ToolUseBlock, UserMessage
from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.rules import RuleSet
from loopwright.session.session import Session
from loopwright.stores.approvals import PendingBatch, PendingCall, answered_record
from loopwright.tools.base import GateDecision, GateReport, Tool, ToolContext, ToolGate, ToolResult
from loopwright.types import (
    ApprovalDecision,
    PermissionMode,
    PermissionResultAllow,
    PermissionResultDeny,
)


def pending_batch(
    session: Session, calls: Sequence[ToolUseBlock], turn: ToolTurn, earlier: PendingBatch | None
) -> PendingBatch:
    """What waits after ``turn``: its deferred calls, and every result the batch has."""
    last = session.conversation.last
    assert isinstance(last, AssistantMessage)
    timeout = session.agent.options.approval_timeout_seconds
    now = time.time()
    by_id = {call.id: call for call in calls}
    waiting = tuple(
        PendingCall(
            tool_use_id=call_id,
            tool_name=by_id[call_id].name,
            input=dict(decision.input),
            reason=decision.message,
            suggestion=decision.suggestion,
            deferred_at=now,
            deadline=now + timeout if timeout is not None else None,
        )
        for call_id, decision in turn.deferred.items()
    )
    ran = tuple(r for r in turn.results if r.tool_use_id not in turn.deferred)
    before = earlier.results if earlier is not None else ()
    denials = (*(earlier.denials if earlier else ()), *turn.denials)
    return PendingBatch(last.uuid, waiting, (*before, *ran), tuple(denials))


def defer(session: Session, batch: PendingBatch) -> Then:
    """End the run with ``batch`` waiting: its record in the transcript, then the end."""
    session.pending = batch
    record = batch.to_record()
    names = ", ".join(f"{c.tool_name} ({c.tool_use_id})" for c in batch.calls)
    note = (
        f"waiting for approval: {names}; answer with loopwright approvals approve/deny "
        f"{session.session_id}, or resume it with Options(approvals=...)"
    )
    pending = tuple(call.to_dict() for call in batch.calls)
    return Then([record], Finish("pending_approval", "tool_use", (note,), pending=pending))


def settle(session: Session, prompt: UserMessage | None) -> Then:
    """Answer the waiting batch: the approvers' answers recorded first (so no call ever
    runs twice), then a batch of the waiting calls under an :class:`ApprovalGate`."""
    batch = session.pending
    assert batch is not None
    last = session.conversation.last
    assert isinstance(last, AssistantMessage) and last.uuid == batch.assistant_uuid
    decisions, session.approvals = session.approvals, {}
    rules = always_rules(decisions)
    _allow_for_session(session, rules)
    record = answered_record({k: decision_dict(v) for k, v in decisions.items()}, rules)
    session.pending = None  # from here on, a crash closes these calls: never run twice
    gate = ApprovalGate(session.agent.gate, batch, decisions, ask_again=not decisions)
    waiting = [call for call in last.tool_calls if batch.call(call.id) is not None]
    return Then([record], RunTools(waiting, Settling(batch, gate, prompt)))


async def settled(
    session: Session, settling: Settling, calls: Sequence[ToolUseBlock], turn: ToolTurn
) -> Then:
    """After the waiting batch ran: it waits again when calls still wait; else its one
    tool_result message is appended and the run goes on — with the prompt that came with
    the answers, or by asking the model."""
    batch = settling.batch
    if turn.deferred and turn.stop is None and turn.failed is None:
        waiting = defer(session, pending_batch(session, calls, turn, batch))
        if settling.prompt is None:
            return waiting
        assert isinstance(waiting.step, Finish)
        unsent = "the prompt was not sent: answer the calls that wait first"
        ending = dataclasses.replace(waiting.step, errors=(*waiting.step.errors, unsent))
        return Then(waiting.messages, ending)
    last = session.conversation.last
    assert isinstance(last, AssistantMessage)
    given = {r.tool_use_id: r for r in (*batch.results, *turn.results)}
    blocks: list[ContentBlock] = [given[c.id] for c in last.tool_calls if c.id in given]
    answered = UserMessage(blocks, session.agent.parent_tool_use_id)
    # The batch's results, then what its hooks said (as after any batch).
    messages: list[Message] = [await session.conversation.append(answered), *turn.notices]
    # An approved call's request, as after any batch.
    if (ended := tool_ended(turn.requests, messages)) is not None:
        return ended
    if (switched := await apply_handoff(session, turn.requests)) is not None:
        messages.append(switched)
    ending = turn.stop or turn.failed
    if ending is not None:
        return Then(messages, ending)
    return Then(messages, Prompt(settling.prompt) if settling.prompt else Ask("approved"))


def decision_dict(decision: ApprovalDecision) -> dict[str, Any]:
    match decision:
        case PermissionResultAllow():
            return {"behavior": "allow", "updated_input": decision.updated_input}
        case PermissionResultDeny():
            return {"behavior": "deny", "message": decision.message}


def always_rules(decisions: Mapping[str, ApprovalDecision]) -> list[str]:
    """Rules an approver chose "always" for (``updated_permissions``): rule strings, or
    Claude-style ``{"type": "addRules", "rules": [{"toolName", "ruleContent"}]}``."""
    rules: list[str] = []
    for decision in decisions.values():
        if not isinstance(decision, PermissionResultAllow):
            continue
        for update in decision.updated_permissions or []:
            if isinstance(update, str):
                rules.append(update)
            elif isinstance(update, dict):
                for rule in update.get("rules") or []:  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                    if isinstance(rule, dict) and rule.get("toolName"):  # pyright: ignore[reportUnknownMemberType]
                        content = rule.get("ruleContent")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                        name = str(rule["toolName"])  # pyright: ignore[reportUnknownArgumentType]
                        rules.append(f"{name}({content})" if content else name)
    return list(dict.fromkeys(rules))


def _allow_for_session(session: Session, rules: Sequence[str]) -> None:
    gate = session.agent.gate
    if rules and isinstance(gate, PermissionGate):
        added = RuleSet.from_strings(allow=rules, anchor=session.state.cwd, source="session")
        gate.policy.rules = gate.policy.rules + added
        gate.approved_rules = (*gate.approved_rules, *added.allow)


class ApprovalGate:
    """The gate for the calls of a waiting batch: what the approvers answered decides
    (deny rules still hold); a call nobody answered waits again — or, when no answer was
    given at all (the REPL resuming, a plain resume), goes through the session's own gate,
    which asks like for any other call. Past its deadline a call is denied."""

    def __init__(
        self,
        inner: ToolGate,
        batch: PendingBatch,
        decisions: Mapping[str, ApprovalDecision],
        *,
        ask_again: bool,
    ) -> None:
        self.inner = inner
        self.batch = batch
        self.decisions = dict(decisions)
        self.ask_again = ask_again
        self.now = time.time()

    @property
    def mode(self) -> PermissionMode:
        return self.inner.mode

    def set_mode(self, mode: PermissionMode) -> None:
        self.inner.set_mode(mode)

    def end_batch(self) -> GateReport:
        return self.inner.end_batch()

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult:
        return await self.inner.after(tool, input, result, ctx)

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision:
        call = self.batch.call(ctx.tool_use_id)
        assert call is not None, "only the waiting calls run under this gate"
        if call.deadline is not None and call.deadline < self.now:
            when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(call.deadline))
            reason = f"nobody approved it before its deadline ({when})"
            return _denied(tool.name, input, reason)
        decision = self.decisions.get(call.tool_use_id)
        match decision:
            case None if self.ask_again:
                return await self.inner.before(tool, input, ctx)
            case None:
                return GateDecision(
                    False, input, call.reason, deferred=True, suggestion=call.suggestion
                )
            case PermissionResultAllow():
                chosen = decision.updated_input if decision.updated_input is not None else input
                inner = self.inner
                if isinstance(inner, PermissionGate):
                    denied = inner.policy.denied_by_rule(tool.name, chosen, ctx.cwd)
                    if denied is not None:
                        return _denied(tool.name, chosen, denied.reason)
                return GateDecision(True, chosen)
            case PermissionResultDeny():
                reason = decision.message or "the approver denied it"
                return _denied(tool.name, input, reason, interrupt=decision.interrupt)


def _denied(
    name: str, input: dict[str, Any], reason: str, *, interrupt: bool = False
) -> GateDecision:
    message = f"Permission to use {name} was denied: {reason}"
    return GateDecision(False, input, message=message, interrupt=interrupt)
