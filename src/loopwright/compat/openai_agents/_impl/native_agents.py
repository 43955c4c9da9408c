"""An OpenAI Agents agent as loopwright's native loop runs it: the session's ``Options``,
the agent's tools (each a ``RunTool``), its handoffs (native handoffs to ``HandoffAgent``s)
and its model (a ``RunModel``). One per run; it remembers the agents and handoffs it has
seen, which the run needs to name the items it reports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.compat._model_choice import warn_ignored
from loopwright.compat.openai_agents._impl.approvals import Approvals
from loopwright.compat.openai_agents._impl.context import RunContextWrapper
from loopwright.compat.openai_agents._impl.guardrail_bridge import GuardrailBridge
from loopwright.compat.openai_agents._impl.handoff_filter import history_filter
from loopwright.compat.openai_agents._impl.handoffs import Handoff, as_handoff
from loopwright.compat.openai_agents._impl.mcp import mcp_tools
from loopwright.compat.openai_agents._impl.model_bridge import SdkModelBridge, model_tracing
from loopwright.compat.openai_agents._impl.model_interface import Model as SdkModel
from loopwright.compat.openai_agents._impl.models import ClientModel, native_model
from loopwright.compat.openai_agents._impl.output import output_format_for
from loopwright.compat.openai_agents._impl.ports import PriorHistory
from loopwright.compat.openai_agents._impl.providers import provided_model
from loopwright.compat.openai_agents._impl.retry import max_retries_of
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.compat.openai_agents._impl.run_model import ModelScope, RunModel
from loopwright.compat.openai_agents._impl.run_tool import RunTool, ToolScope
from loopwright.compat.openai_agents._impl.tools import FunctionTool, tool_enabled
from loopwright.guardrails import guarded_tool
from loopwright.hooks.runner import HookMatcher
from loopwright.models.base import ToolSpec
from loopwright.options import Options
from loopwright.subagents.handoffs import HandoffAgent
from loopwright.subagents.handoffs import handoff as native_handoff


@dataclass(frozen=True, slots=True)
class RunSettings:
    """The Runner's arguments that shape every agent of the run."""

    run_config: RunConfig
    max_turns: int
    streaming: bool
    cwd: str


@dataclass(slots=True)
class NativeAgents:
    settings: RunSettings
    context: RunContextWrapper[Any]
    guardrails: GuardrailBridge
    tool_scope: ToolScope
    model_scope: ModelScope
    approvals: Approvals
    history: PriorHistory
    # Every agent of the run by name, and every handoff by its tool name.
    agents: dict[str, Any] = field(default_factory=dict[str, Any])
    handoff_tools: dict[str, Handoff] = field(default_factory=dict[str, Handoff])
    # Tools whose calls may need approval, by name (the PreToolUse hook asks them).
    approval_tools: dict[str, RunTool] = field(default_factory=dict[str, RunTool])

    async def options(self, agent: Any, system_extra: Sequence[str]) -> Options:
        run = self.settings
        settings = agent.model_settings.resolve(run.run_config.model_settings)
        warn_ignored("ModelSettings", settings.ignored())
        system = await agent.get_system_prompt(self.context) or ""
        if system_extra:
            system = "\n\n".join([system, *system_extra]).strip()
        model = self.run_model(agent)
        # A model with native structured output answers in JSON (see RunModel); the others
        # deliver an output_type through loopwright's StructuredOutput tool.
        output_format = None if model.answers_in_json else output_format_for(agent.output_type)
        chosen_retries = max_retries_of(settings.retry)
        return Options(
            model=model,
            system_prompt=system,
            tools=await self.agent_tools(agent),
            guardrails=self.guardrails.for_start(agent) + self.guardrails.output_of(agent),
            permission_mode="bypassPermissions",
            setting_sources=[],
            # Stored, so that a run paused for approvals resumes from any process.
            cwd=run.cwd,
            hooks={"PreToolUse": [HookMatcher(None, [self._defer_hook])]},
            # That SDK counts model calls; loopwright counts tool rounds (one fewer). A
            # structured answer is a StructuredOutput call here, so it gets its own round.
            max_turns=run.max_turns - 1 + (1 if output_format is not None else 0),
            max_tokens=settings.max_tokens,
            effort=settings.effort,
            max_retries=Options().max_retries if chosen_retries is None else chosen_retries,
            output_format=output_format,
            include_partial_messages=run.streaming,
        )

    async def _defer_hook(self, data: dict[str, Any], call_id: str | None, _: Any) -> Any:
        """PreToolUse: a call whose tool needs approval waits (the run ends pending)."""
        tool = self.approval_tools.get(str(data.get("tool_name")))
        if tool is None or self.approvals.answered(tool.name, call_id):
            return {}
        input = data.get("tool_input")
        if not await tool.needs_approval_for(input if isinstance(input, dict) else {}, call_id):
            return {}
        reason = f"{tool.name} needs approval"
        specific = {"hookEventName": "PreToolUse", "permissionDecision": "defer"}
        return {"hookSpecificOutput": {**specific, "permissionDecisionReason": reason}}

    def run_model(self, agent: Any) -> RunModel:
        run_config = self.settings.run_config
        config_model = run_config.model
        spec = provided_model(config_model if config_model is not None else agent.model, run_config)
        if isinstance(spec, SdkModel) and not isinstance(spec, ClientModel):
            tracing = model_tracing(run_config, self.model_scope.trace.disabled)
            bridge = SdkModelBridge(
                spec, agent, self, run_config, tracing, streaming=self.settings.streaming
            )
            return RunModel(bridge, agent, self.model_scope)
        return RunModel(native_model(spec), agent, self.model_scope)

    def sdk_tools(self, agent: Any, specs: Sequence[ToolSpec]) -> tuple[list[Any], list[Any]]:
        """The tools and handoffs of a model request as that SDK's objects (for a user's
        Model); a tool the agent does not list (an MCP tool) is described by name."""
        own = {str(getattr(t, "name", "")): t for t in agent.tools}
        tools: list[Any] = []
        handoffs: list[Any] = []
        for spec in specs:
            if spec.name in self.handoff_tools:
                handoffs.append(self.handoff_tools[spec.name])
            elif spec.name in own:
                tools.append(own[spec.name])
            else:
                tools.append(_described_tool(spec))
        return tools, handoffs

    async def agent_tools(self, agent: Any) -> list[Any]:
        self.agents[agent.name] = agent
        served = await mcp_tools(agent.mcp_servers, self.context, agent)
        tools: list[Any] = [RunTool(t, agent, self.tool_scope) for t in served]
        for item in agent.tools:
            if await tool_enabled(item, self.context, agent):
                wrapped = RunTool(item, agent, self.tool_scope)
                if getattr(item, "needs_approval", False):
                    self.approval_tools[wrapped.name] = wrapped
                tools.append(guarded_tool(wrapped, self.guardrails.of_tool(item, agent)))
        for entry in agent.handoffs:
            described = as_handoff(entry)
            if await tool_enabled(described, self.context, agent):
                tools.append(self.native_handoff(described))
        return tools

    def native_handoff(self, described: Handoff) -> Any:
        self.handoff_tools[described.tool_name] = described
        self.agents[described.agent.name] = described.agent

        async def target() -> HandoffAgent:
            return await self.handoff_agent(described.agent)

        async def on_handoff(arguments: dict[str, Any]) -> None:
            await described.run_callback(self.context, arguments)

        chosen_filter = described.input_filter or self.settings.run_config.handoff_input_filter
        input_filter = (
            history_filter(self.history, self.context, chosen_filter) if chosen_filter else None
        )
        return native_handoff(
            target,
            tool_name=described.tool_name,
            tool_description=described.tool_description,
            on_handoff=on_handoff,
            input_schema=described.input_json_schema,
            input_filter=input_filter,
            agent_name=described.agent_name,
        )

    async def handoff_agent(self, agent: Any) -> HandoffAgent:
        settings = agent.model_settings
        return HandoffAgent(
            name=agent.name,
            instructions=await agent.get_system_prompt(self.context) or "",
            tools=await self.agent_tools(agent),
            model=self.run_model(agent),
            max_tokens=settings.max_tokens,
            effort=settings.effort,
            guardrails=self.guardrails.output_of(agent),
        )


def _described_tool(spec: ToolSpec) -> Any:
    async def not_here(context: Any, arguments: str) -> str:
        return f"{spec.name} runs in loopwright's loop, not through the model"

    return FunctionTool(spec.name, spec.description, dict(spec.input_schema), not_here)
