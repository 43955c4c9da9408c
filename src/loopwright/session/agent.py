"""Agent: what a session is — its model, tools, system prompt, gate, hooks and limits.

Built once by assembly and never changed: a handoff or ``Client.set_model`` makes a new
Agent (``dataclasses.replace``) for the same Conversation, and a subagent is a new Agent
with a child Spend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loopwright.context.compaction import CompactionSettings
from loopwright.context.tokens import context_window
from loopwright.errors import ConfigurationError
from loopwright.hooks.runner import HookRunner
from loopwright.models.base import Model, ThinkingConfig, ToolSpec, context_window_of
from loopwright.options import Options
from loopwright.tools.base import Tool, ToolGate
from loopwright.types import PermissionMode

if TYPE_CHECKING:  # import cost only: guardrails, structured output, tool search when used
    from loopwright.guardrails import Guardrail
    from loopwright.tools.structured_output import OutputFormat
    from loopwright.tools.tool_search import DeferredToolRegistry

# Builds a gate with the session's rules for a subagent: (its mode, its hook fields).
GateFactory = Callable[[PermissionMode, Mapping[str, Any]], ToolGate]


@dataclass(frozen=True, slots=True, kw_only=True)
class Agent:
    # The limits and knobs (max_turns, budgets, max_tokens, effort …): the session's own
    # copy, so editing the caller's Options later changes nothing here.
    options: Options
    model: Model
    tools: Mapping[str, Tool]
    system_prompt: str
    # The one mutable part, on purpose: the gate holds the session's permission state
    # (the mode Client.set_permission_mode switches mid-run, rules approved "always"),
    # which every Agent of the session shares across handoffs.
    gate: ToolGate
    hooks: HookRunner | None = None
    # Where file tools may work without asking: the starting cwd and added dirs.
    working_dirs: tuple[Path, ...] = ()
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    # The run must end with a valid call of the StructuredOutput tool.
    output_format: OutputFormat | None = None
    # MCP tools behind ToolSearch; loaded ones join the tools the model sees.
    deferred: DeferredToolRegistry | None = None
    guardrails: Sequence[Guardrail] = ()
    name: str | None = None  # set by a handoff: the agent now talking
    # Inside a subagent: the Agent call it answers, and agent_id/agent_type for hooks.
    parent_tool_use_id: str | None = None
    hook_fields: Mapping[str, Any] = field(default_factory=dict[str, Any])
    gate_factory: GateFactory | None = None
    # Shown in the init message.
    mcp_status: Sequence[Mapping[str, Any]] = ()
    agent_names: Sequence[str] = ()
    skill_names: Sequence[str] = ()

    def active_tools(self) -> Mapping[str, Tool]:
        """The tools callable now: the agent's, plus deferred ones the model has loaded."""
        if self.deferred is None:
            return self.tools
        return {**self.tools, **{t.name: t for t in self.deferred.loaded()}}

    def tool_specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(t.name, t.description, t.input_schema) for t in self.active_tools().values()
        ]

    @property
    def window(self) -> int:
        """The context window, derived from the model every time (never a stored copy that
        a handoff, a subagent's own model or set_model could leave stale)."""
        return window_of(self.model, self.options)

    @property
    def permission_mode(self) -> PermissionMode:
        return self.gate.mode

    def thinking(self) -> ThinkingConfig | None:
        return thinking_config(self.options.thinking)


def window_of(model: Model, options: Options) -> int:
    """The context window: the user's, else what the provider knows of its model ([1m]
    variants, overrides in the model string), else the capabilities table. The one place
    it is computed (an Agent's window, assembly's tool-search threshold)."""
    return options.context_window or context_window_of(model) or context_window(model.name)


def thinking_config(raw: ThinkingConfig | Mapping[str, Any] | None) -> ThinkingConfig | None:
    """Options.thinking as a ThinkingConfig; a dict with unknown keys is a clear error."""
    if raw is None or isinstance(raw, ThinkingConfig):
        return raw
    try:
        config = ThinkingConfig(**raw)
    except TypeError as exc:
        raise ConfigurationError(
            f"thinking={raw!r} is not valid ({exc}); use keys type "
            "('adaptive'|'enabled'|'disabled'), budget_tokens and display"
        ) from exc
    if config.type not in ("adaptive", "enabled", "disabled"):
        raise ConfigurationError(
            f"thinking type {config.type!r} is not one of 'adaptive', 'enabled', 'disabled'"
        )
    return config
