"""An agent's tool as a Runner run executes it: approvals, the tool hooks, the function
span, and the tool's own return value (for ``tool_use_behavior``)."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any

from loopwright.compat.openai_agents._impl.context import ToolContext, tool_context
from loopwright.compat.openai_agents._impl.hook_calls import LifecycleHooks
from loopwright.compat.openai_agents._impl.items import ToolApprovalItem
from loopwright.compat.openai_agents._impl.ports import ApprovalSource
from loopwright.compat.openai_agents._impl.run_trace import RunTrace
from loopwright.compat.openai_agents._impl.tools import (
    FunctionTool,
    result_text,
    tool_output_result,
)
from loopwright.messages import ToolUseBlock
from loopwright.tools.base import Tool, ToolResult, ToolWrapper
from loopwright.tools.base import ToolContext as NativeToolContext

# Each executed call's (tool, the tool's own return value), by call id.
ToolOutputs = dict[str, tuple[Any, Any]]


@dataclass(frozen=True, slots=True)
class ToolScope:
    """What a run's tools report to: the hooks, the trace, the outputs, the approvals."""

    hooks: LifecycleHooks
    trace: RunTrace
    outputs: ToolOutputs
    approvals: ApprovalSource


@dataclass
class RunTool(ToolWrapper):
    """One of the agent's tools, as this run executes it (the rest is the tool's own)."""

    tool: Any
    agent: Any
    scope: ToolScope

    @property
    def wrapped(self) -> Tool:
        return self.tool

    async def call(self, input: dict[str, Any], ctx: NativeToolContext) -> ToolResult:
        scope = self.scope
        hooks = scope.hooks
        arguments = json.dumps(input)
        context = ToolContext.of(hooks.context, self.name, ctx.tool_use_id, arguments)
        call = ToolUseBlock(ctx.tool_use_id, self.name, input)
        if await self._needs_approval(context, input, ctx.tool_use_id):
            rejection = await self._approve(call, context)
            if rejection is not None:
                return ToolResult(rejection)
        await hooks.both(self.agent, "on_tool_start", context, self.agent, self.tool)
        with (
            tool_context(context),
            scope.trace.function(self.agent, self.name, arguments) as span,
        ):
            if isinstance(self.tool, FunctionTool):
                raw: Any = await self.tool.invoke(input)
                result = tool_output_result(raw)
            else:
                result = await self.tool.call(input, ctx)
                raw = result_text(result)
            if scope.trace.include_data:
                span.span_data.output = raw  # type: ignore[attr-defined]
        scope.outputs[ctx.tool_use_id] = (self.tool, raw)
        await hooks.both(self.agent, "on_tool_end", context, self.agent, self.tool, raw)
        return result

    async def _approve(self, call: ToolUseBlock, context: ToolContext[Any]) -> str | None:
        """None when the call may run, else the message the model gets instead."""
        extras = getattr(self.tool, "extras", {})
        decide = extras.get("on_approval") if isinstance(extras, dict) else None
        if decide is None:
            return await self.scope.approvals.approval(self.agent, call, self.name)
        raw = {"type": "shell_call", "call_id": call.id, "action": dict(call.input)}
        produced = decide(context, ToolApprovalItem(self.agent, raw, tool_name=self.name))
        verdict = await produced if inspect.isawaitable(produced) else produced
        if verdict.get("approve"):
            return None
        return str(verdict.get("reason") or f"The call to {self.name} was not approved.")

    async def needs_approval_for(self, input: dict[str, Any], call_id: str | None) -> bool:
        """Whether this call must wait for approval (a tool that decides itself with an
        ``on_approval`` callback never waits)."""
        extras = getattr(self.tool, "extras", {})
        if isinstance(extras, dict) and extras.get("on_approval") is not None:
            return False
        run_context = self.scope.hooks.context
        context = ToolContext.of(run_context, self.name, call_id or "", json.dumps(input))
        return await self._needs_approval(context, input, call_id or "")

    async def _needs_approval(
        self, context: ToolContext[Any], input: dict[str, Any], call_id: str
    ) -> bool:
        needs = getattr(self.tool, "needs_approval", False)
        if callable(needs):
            produced = needs(context, input, call_id)
            needs = await produced if inspect.isawaitable(produced) else produced
        return bool(needs)
