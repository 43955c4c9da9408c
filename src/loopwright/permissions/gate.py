"""PermissionGate: hooks and the policy around every tool call (the ToolGate protocol).

before(): PreToolUse hooks → policy (deny → ask → mode → allow) → PermissionRequest hooks
→ ``can_use_tool``. Any input a hook or callback rewrote is checked against the deny
rules again. after(): PostToolUse / PostToolUseFailure hooks may add context, replace the
output, or stop the run.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from loopwright.hooks.payloads import hook_payload, outcome_notices
from loopwright.hooks.runner import HookEvent, HookOutcome, HookRunner
from loopwright.messages import TextBlock
from loopwright.permissions.policy import PermissionPolicy, Verdict
from loopwright.permissions.rules import PermissionRule
from loopwright.tools.agent_action import is_agent_action
from loopwright.tools.base import GateDecision, GateReport, Tool, ToolContext, ToolResult
from loopwright.types import (
    CanUseTool,
    HookNotice,
    PermissionMode,
    PermissionResultAllow,
    PermissionResultDefer,
    PermissionResultDeny,
    ToolPermissionContext,
)

if TYPE_CHECKING:
    # Imported where a call is judged (start-up: no tool runs before the first request).
    from loopwright.permissions.matching import CallFacts


class PermissionGate:
    """Decides whether each tool call runs (the ToolGate protocol); after each batch the
    loop reads what the batch's hooks said and whether one stopped the run (``end_batch``)."""

    def __init__(
        self,
        policy: PermissionPolicy,
        hooks: HookRunner | None = None,
        can_use_tool: CanUseTool | None = None,
        *,
        session_id: str = "",
        transcript_path: str | None = None,
        hook_fields: Mapping[str, Any] | None = None,
    ) -> None:
        self.policy = policy
        # Extra fields for every hook input, e.g. agent_id/agent_type inside a subagent.
        self.hook_fields = dict(hook_fields or {})
        self.hooks = hooks or HookRunner()
        self.can_use_tool = can_use_tool
        self.session_id = session_id
        self.transcript_path = transcript_path
        # This batch's denials (the session's total is Spend.denials, which the executor
        # fills); forgotten at end_batch so a long session does not keep every one twice.
        self.permission_denials: list[dict[str, Any]] = []
        self.notices: list[HookNotice] = []
        # Set when a hook returned continue=false: the loop ends the run after this batch.
        self.stop_reason: str | None = None
        # Rules that were dropped at start (e.g. an allow glob like "*"); worth showing once.
        self.rule_warnings: list[str] = []
        # Calls these match wait for a person's approval (defer_tools, needs_approval).
        self.defer_rules: tuple[PermissionRule, ...] = ()
        # Allow rules an approver chose "always" for: such calls no longer wait.
        self.approved_rules: tuple[PermissionRule, ...] = ()

    @property
    def mode(self) -> PermissionMode:
        return self.policy.mode

    def set_mode(self, mode: PermissionMode) -> None:
        self.policy.mode = mode

    def end_batch(self) -> GateReport:
        report = GateReport(tuple(self.notices), self.stop_reason)
        self.notices, self.stop_reason = [], None
        self.permission_denials = []
        return report

    # ----------------------------------------------------------------- before

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision:
        name, cwd = tool.name, ctx.cwd
        pre = await self._hook(
            "PreToolUse",
            ctx,
            match_value=name,
            tool_name=name,
            tool_input=input,
            tool_use_id=ctx.tool_use_id,
        )
        if not pre.continue_:
            self.stop_reason = pre.stop_reason or "a PreToolUse hook stopped the run"
            return self._deny(name, input, ctx, self.stop_reason, interrupt=True)
        if pre.permission_decision == "deny" or pre.blocked:
            reason = pre.reason or "denied by a PreToolUse hook"
            return self._deny(name, input, ctx, reason)
        current = pre.updated_input if pre.updated_input is not None else input
        hook_decision = pre.permission_decision
        if hook_decision == "defer":
            return self._defer(name, current, ctx, pre.reason or "a PreToolUse hook deferred it")
        if hook_decision is None and is_agent_action(tool):
            hook_decision = "allow"  # a handoff is part of the agent; deny/ask rules still win
        verdict = self.policy.evaluate(name, current, cwd, hook_decision=hook_decision)
        if verdict.behavior != "deny" and (why := self._defer_rule(name, current, ctx)):
            return self._defer(name, current, ctx, why)
        match verdict.behavior:
            case "deny":
                return self._deny(name, current, ctx, verdict.reason)
            case "allow":
                return GateDecision(True, current, additional_context=pre.additional_context)
            case "ask":
                return await self._ask(name, current, ctx, verdict, pre)

    async def _ask(
        self,
        name: str,
        input: dict[str, Any],
        ctx: ToolContext,
        verdict: Verdict,
        pre: HookOutcome,
    ) -> GateDecision:
        request = await self._hook(
            "PermissionRequest", ctx, match_value=name, tool_name=name, tool_input=input
        )
        if request.permission_decision == "deny":
            return self._deny(
                name, input, ctx, request.reason or "denied by a hook", interrupt=request.interrupt
            )
        if request.permission_decision == "allow":
            return self._approve(name, request.updated_input or input, ctx, pre)
        if self.can_use_tool is None:
            return self._deny(name, input, ctx, _no_callback_message(name, verdict))
        # The user is about to be asked: Notification hooks can page them (desktop, chat).
        await self._hook(
            "Notification",
            ctx,
            match_value="permission_prompt",
            notification_type="permission_prompt",
            message=f"permission needed to use {name}: {verdict.reason}",
            tool_name=name,
        )
        context = ToolPermissionContext(
            tool_use_id=ctx.tool_use_id,
            session_id=ctx.session_id or self.session_id,
            cwd=str(ctx.cwd),
            permission_mode=self.policy.mode,
            reason=verdict.reason,
        )
        try:
            answer = self.can_use_tool(name, dict(input), context)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:
            return self._deny(name, input, ctx, f"can_use_tool raised {type(exc).__name__}: {exc}")
        match answer:
            case PermissionResultAllow():
                return self._approve(name, answer.updated_input or input, ctx, pre)
            case PermissionResultDeny():
                return self._deny(
                    name,
                    input,
                    ctx,
                    answer.message or "denied by can_use_tool",
                    interrupt=answer.interrupt,
                )
            case PermissionResultDefer():
                return self._defer(name, input, ctx, answer.reason or verdict.reason)
            case _:
                return self._deny(
                    name,
                    input,
                    ctx,
                    "can_use_tool must return PermissionResultAllow, "
                    "PermissionResultDeny or PermissionResultDefer, got "
                    f"{type(answer).__name__}",
                )

    def _approve(
        self, name: str, input: dict[str, Any], ctx: ToolContext, pre: HookOutcome
    ) -> GateDecision:
        # A rewritten input is a new call as far as deny rules go.
        denied = self.policy.denied_by_rule(name, input, ctx.cwd)
        if denied is not None:
            return self._deny(name, input, ctx, denied.reason)
        return GateDecision(True, input, additional_context=pre.additional_context)

    def _defer_rule(self, name: str, input: dict[str, Any], ctx: ToolContext) -> str | None:
        if not self.defer_rules:
            return None
        from loopwright.permissions.matching import restrictive_match  # start-up

        facts = self.policy.facts(name, input, ctx.cwd)
        rule = next((r for r in self.defer_rules if restrictive_match(r, facts)), None)
        if rule is None or self._approved_always(facts):
            return None
        if rule.source == "needs_approval":
            return f"{name} is marked needs_approval: every call waits for a person"
        return f"matches approval rule {rule.text}"

    def _approved_always(self, facts: CallFacts) -> bool:
        from loopwright.permissions.matching import allow_match, command_allowed  # start-up

        rules = self.approved_rules
        if facts.shell is None:
            return any(allow_match(r, facts) for r in rules)
        bash = [r for r in rules if r.matches_tool_name("Bash")]
        commands = facts.shell.commands
        return bool(bash) and facts.shell.safe and all(command_allowed(c, bash) for c in commands)

    def _defer(
        self, name: str, input: dict[str, Any], ctx: ToolContext, reason: str
    ) -> GateDecision:
        # A deny rule still wins: a call no approval could let run is denied at once.
        denied = self.policy.denied_by_rule(name, input, ctx.cwd)
        if denied is not None:
            return self._deny(name, input, ctx, denied.reason)
        return GateDecision(
            False, input, message=reason, deferred=True, suggestion=suggested_rule(name, input)
        )

    def _deny(
        self,
        name: str,
        input: dict[str, Any],
        ctx: ToolContext,
        reason: str,
        *,
        interrupt: bool = False,
    ) -> GateDecision:
        self.permission_denials.append(
            {"tool_name": name, "tool_use_id": ctx.tool_use_id, "tool_input": dict(input)}
        )
        message = f"Permission to use {name} was denied: {reason}"
        return GateDecision(False, input, message=message, interrupt=interrupt)

    # ----------------------------------------------------------------- after

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult:
        text = _result_text(result)
        if result.is_error:
            outcome = await self._hook(
                "PostToolUseFailure",
                ctx,
                match_value=tool.name,
                tool_name=tool.name,
                tool_input=input,
                tool_use_id=ctx.tool_use_id,
                error=text,
            )
        else:
            outcome = await self._hook(
                "PostToolUse",
                ctx,
                match_value=tool.name,
                tool_name=tool.name,
                tool_input=input,
                tool_use_id=ctx.tool_use_id,
                tool_response=text,
            )
        if not outcome.continue_:
            self.stop_reason = outcome.stop_reason or "a PostToolUse hook stopped the run"
        updated = result
        if outcome.updated_output is not None:
            replacement = outcome.updated_output
            if not isinstance(replacement, str):
                replacement = json.dumps(replacement, default=str)
            updated = ToolResult(replacement, is_error=result.is_error)
        extra = [
            x
            for x in (outcome.reason if outcome.blocked else None, outcome.additional_context)
            if x
        ]
        return _append(updated, "\n\n".join(extra)) if extra else updated

    # ----------------------------------------------------------------- hooks

    async def _hook(
        self, event: HookEvent, ctx: ToolContext, *, match_value: str, **fields: Any
    ) -> HookOutcome:
        if not self.hooks.has(event):
            return HookOutcome()
        payload = hook_payload(
            event,
            session_id=ctx.session_id or self.session_id,
            cwd=str(ctx.cwd),
            permission_mode=self.policy.mode,
            transcript_path=self.transcript_path,
            scope_fields=self.hook_fields,
            **fields,
        )
        outcome = await self.hooks.run(
            event, payload, match_value=match_value, tool_use_id=ctx.tool_use_id
        )
        self.notices.extend(outcome_notices(event, outcome))
        return outcome


def suggested_rule(name: str, input: dict[str, Any]) -> str:
    """A rule an approver may choose "always" with: this exact command, or the tool."""
    command = input.get("command")
    if name == "Bash" and isinstance(command, str) and "\n" not in command:
        return f"Bash({command})"
    return name


def _no_callback_message(name: str, verdict: Verdict) -> str:
    return (
        f"{verdict.reason}, and no can_use_tool callback is set to ask. To allow it, add an "
        f"allow rule such as allowed_tools=[{name!r}], pass can_use_tool, or choose a "
        "permission_mode that approves it"
    )


def _result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "\n".join(b.text for b in result.content if isinstance(b, TextBlock))


def _append(result: ToolResult, text: str) -> ToolResult:
    if isinstance(result.content, str):
        return ToolResult(f"{result.content}\n\n{text}", is_error=result.is_error)
    return ToolResult([*result.content, TextBlock(text)], is_error=result.is_error)
