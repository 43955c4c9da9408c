"""Running a subagent: a fresh loop with its own context and a narrower tool set.

The Agent tool hands the task here through the ``run_subagent`` service. The subagent
shares the parent's model (unless its definition names another), permission gate, working
directory and transcript; its messages stream out tagged with the parent's tool_use id,
its spending counts in the parent's totals, and only its final text goes back as the
tool result.
"""

from __future__ import annotations

import dataclasses

from loopwright.context.tokens import ContextMeter
from loopwright.loop.run import agent_loop
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)
from loopwright.models.settings import ModelSettings
from loopwright.options import AgentDefinition
from loopwright.session.assemble import resolve_model, with_retries
from loopwright.session.runtime import Runtime
from loopwright.subagents.tool import RUN_SUBAGENT_SERVICE, narrow_tools
from loopwright.tools.base import SessionState, ToolContext, ToolResult
from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME
from loopwright.tools.tool_search import TOOL_SEARCH_NAME, DeferredToolRegistry

SUBAGENT_SYSTEM_SUFFIX = (
    "\n\nYou are running as a subagent. Your final message is returned to the agent that "
    "started you; make it a complete, self-contained report."
)


def install_subagents(rt: Runtime) -> None:
    """Offer the Agent tool a way to run subagents of this session."""

    async def run_subagent(
        name: str, definition: AgentDefinition, prompt: str, ctx: ToolContext
    ) -> ToolResult:
        return await _run(rt, name, definition, prompt, ctx)

    rt.services[RUN_SUBAGENT_SERVICE] = run_subagent


# Least to most permissive: a subagent may ask for a stricter mode, never a looser one.
_MODE_ORDER = ("plan", "dontAsk", "default", "acceptEdits", "bypassPermissions")


def narrower_mode(parent: str, requested: str | None) -> str:
    if requested is None or requested not in _MODE_ORDER or parent not in _MODE_ORDER:
        return parent
    return min(parent, requested, key=_MODE_ORDER.index)


def _settings_for(parent: ModelSettings | None, own: ModelSettings | None) -> ModelSettings | None:
    """The agent's own model settings over the parent's."""
    if parent is None:
        return own
    return parent.merged(own)


def _child_runtime(
    parent: Runtime, name: str, definition: AgentDefinition, ctx: ToolContext
) -> Runtime:
    # The parent's final-answer tool and its ToolSearch (bound to the parent's registry)
    # are the parent's own; a subagent with deferred tools gets a registry of its own.
    own = {STRUCTURED_OUTPUT_TOOL_NAME, TOOL_SEARCH_NAME}
    available = [name for name in parent.active_tools() if name not in own]
    names = narrow_tools(available, definition)
    tools = {name: parent.active_tools()[name] for name in names}
    deferred = None
    if parent.deferred is not None:
        allowed = set(narrow_tools([t.name for t in parent.deferred.deferred], definition))
        deferred = DeferredToolRegistry([t for t in parent.deferred.deferred if t.name in allowed])
        if deferred.deferred:
            tools[TOOL_SEARCH_NAME] = deferred.tool()
    model = parent.model
    if definition.model not in (None, "inherit"):
        model = with_retries(resolve_model(definition.model), parent.options)
    budget = parent.options.max_budget_usd
    spent = parent.run_totals.cost_usd
    if budget is not None and spent is not None:
        budget = max(0.0, budget - spent)  # what the parent has left, not a fresh budget
    options = dataclasses.replace(
        parent.options,
        max_budget_usd=budget,
        max_turns=definition.max_turns,
        effort=definition.effort or parent.options.effort,
        model_settings=_settings_for(parent.options.model_settings, definition.model_settings),
        output_format=None,
        include_partial_messages=parent.options.include_partial_messages,
    )
    services = {k: v for k, v in parent.services.items() if k != RUN_SUBAGENT_SERVICE}
    gate = parent.gate
    hook_fields = {"agent_id": ctx.tool_use_id, "agent_type": name}
    if parent.gate_factory is not None:
        mode = narrower_mode(parent.permission_mode, definition.permission_mode)
        gate = parent.gate_factory(mode, hook_fields)
    return Runtime(
        options=options,
        model=model,
        tools=tools,
        state=SessionState(cwd=parent.state.cwd, resources=parent.state.resources),
        session_id=parent.session_id,
        system_prompt=definition.prompt + SUBAGENT_SYSTEM_SUFFIX,
        gate=gate,
        hooks=parent.hooks,
        hook_fields=hook_fields,
        parent_tool_use_id=ctx.tool_use_id,
        parent=parent,
        services=services,
        meter=ContextMeter(parent.window),
        compaction=parent.compaction,
        base_working_dirs=parent.base_working_dirs,
        deferred=deferred,
    )


async def _run(
    parent: Runtime, name: str, definition: AgentDefinition, prompt: str, ctx: ToolContext
) -> ToolResult:
    child = _child_runtime(parent, name, definition, ctx)
    # SubagentStop fires from the subagent's own loop when it finishes (it may block).
    _, notices = await parent.fire_hook(
        "SubagentStart", match_value=name, agent_type=name, agent_id=ctx.tool_use_id
    )
    for notice in notices:
        if ctx.emit:
            await ctx.emit(notice)
    result: ResultMessage | None = None
    async for message in agent_loop(child, UserMessage(prompt, ctx.tool_use_id)):
        if isinstance(message, ResultMessage):
            result = message
        elif ctx.emit is None:
            continue
        elif isinstance(message, AssistantMessage | UserMessage | StreamEvent):
            await ctx.emit(message)
        elif isinstance(message, SystemMessage) and message.subtype != "init":
            # Retries, compactions and hook notices of the subagent, marked as its own.
            data = {**message.data, "parent_tool_use_id": ctx.tool_use_id}
            await ctx.emit(SystemMessage(message.subtype, data, message.uuid))
    if child.model is not parent.model:  # a model of its own: its HTTP client ends here
        closer = getattr(child.model, "aclose", None)
        if closer is not None:
            await closer()
    if result is None:  # pragma: no cover - the loop always ends with a result
        return ToolResult.error(f"subagent {name!r} ended without a result")
    if result.is_error:
        partial = _last_text(child)
        detail = "; ".join(result.errors) or result.subtype
        return ToolResult.error(
            f"subagent {name!r} stopped early ({result.subtype}: {detail})."
            + (f" Its last message:\n{partial}" if partial else "")
        )
    return ToolResult(result.result or "(the subagent returned no text)")


def _last_text(child: Runtime) -> str:
    for message in reversed(child.history):
        if isinstance(message, AssistantMessage) and message.text:
            return message.text
    return ""
