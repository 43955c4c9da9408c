"""``ClaudeAgentOptions`` and ``AgentDefinition`` as claude-agent-sdk spells them, and their
translation to loopwright :class:`~loopwright.options.Options`.

Field names, types and defaults follow the Claude Agent SDK reference so that existing code
constructs them unchanged. Options that only configure the CLI subprocess that SDK drives
(``cli_path``, ``extra_args``, ``max_buffer_size``, ``stderr``…) have nothing to configure
here and are accepted silently; options for features loopwright lacks are accepted with a
warning rather than rejected, so a script still starts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from loopwright.compat._model_choice import choose_model, model_is_overridden, warn_ignored
from loopwright.errors import ConfigurationError
from loopwright.models.base import Effort, Model
from loopwright.options import AgentDefinition as NativeAgentDefinition
from loopwright.options import Options
from loopwright.tools.base import Tool
from loopwright.types import PermissionMode

SettingSource = Literal["user", "project", "local"]

# Claude Code tools that loopwright knows under another name.
_RENAMED_TOOLS = {"Task": "Agent"}
# Built in to Claude Code but not to loopwright: dropped from ``tools`` with a warning.
_CLAUDE_ONLY_TOOLS = frozenset(
    {"NotebookEdit", "NotebookRead", "Monitor", "ExitPlanMode", "ListMcpResources", "LSP"}
)


@dataclass(kw_only=True)
class AgentDefinition:
    """A subagent, with the camelCase field names of claude-agent-sdk's AgentDefinition."""

    description: str
    prompt: str
    tools: list[str] | None = None
    disallowedTools: list[str] | None = None  # camelCase: the reference names them so
    model: str | None = None
    skills: list[str] | None = None
    memory: Literal["user", "project", "local"] | None = None
    mcpServers: list[str | dict[str, Any]] | None = None
    initialPrompt: str | None = None
    maxTurns: int | None = None
    background: bool | None = None
    effort: Effort | int | None = None
    permissionMode: PermissionMode | None = None

    def to_native(self) -> NativeAgentDefinition:
        unsupported = [
            name
            for name in ("skills", "memory", "mcpServers", "initialPrompt")
            if getattr(self, name)
        ]
        if self.disallowedTools and self.tools is None:
            # Applied below to an explicit tool list; the inherited list is not known here.
            unsupported.append("disallowedTools without tools")
        if self.background:
            unsupported.append("background")
        warn_ignored("AgentDefinition", unsupported)
        tools = self.tools
        if tools is not None and self.disallowedTools:
            tools = [name for name in tools if name not in self.disallowedTools]
        return NativeAgentDefinition(
            description=self.description,
            prompt=self.prompt,
            tools=tools,
            model=self.model,
            effort=self.effort if isinstance(self.effort, str) else None,
            max_turns=self.maxTurns,
            permission_mode=self.permissionMode,
        )


@dataclass(kw_only=True)
class ClaudeAgentOptions:
    """claude-agent-sdk's options object. ``model`` also takes a loopwright Model object
    (a ScriptedModel, say), which is how tests run this code offline."""

    tools: list[str] | dict[str, Any] | None = None
    allowed_tools: list[str] = field(default_factory=list[str])
    system_prompt: str | dict[str, Any] | None = None
    # Not in the current reference, but older releases had it and code still passes it.
    append_system_prompt: str | None = None
    mcp_servers: dict[str, Any] | str | Path = field(default_factory=dict[str, Any])
    strict_mcp_config: bool = False
    permission_mode: PermissionMode | None = None
    continue_conversation: bool = False
    resume: str | None = None
    session_id: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None
    disallowed_tools: list[str] = field(default_factory=list[str])
    model: str | Model | None = None
    fallback_model: str | Model | None = None
    betas: list[str] = field(default_factory=list[str])
    output_format: dict[str, Any] | None = None
    permission_prompt_tool_name: str | None = None
    cwd: str | Path | None = None
    cli_path: str | Path | None = None
    settings: str | None = None
    add_dirs: list[str | Path] = field(default_factory=list[str | Path])
    env: dict[str, str] = field(default_factory=dict[str, str])
    extra_args: dict[str, str | None] = field(default_factory=dict[str, str | None])
    max_buffer_size: int | None = None
    debug_stderr: Any = sys.stderr
    stderr: Any = None
    can_use_tool: Any = None
    hooks: dict[str, list[Any]] | None = None
    user: str | None = None
    include_partial_messages: bool = False
    include_hook_events: bool = False
    forward_subagent_text: bool = False
    fork_session: bool = False
    resume_session_at: str | None = None
    resume_drops_turn: str | None = None
    agents: dict[str, AgentDefinition | NativeAgentDefinition] | None = None
    setting_sources: list[SettingSource] | None = None
    skills: list[str] | Literal["all"] | None = None
    sandbox: Any = None
    plugins: list[Any] = field(default_factory=list[Any])
    max_thinking_tokens: int | None = None
    thinking: dict[str, Any] | None = None
    effort: Effort | None = None
    enable_file_checkpointing: bool = False
    session_store: Any = None
    session_store_flush: str = "batched"
    load_timeout_ms: int = 60_000
    task_budget: dict[str, int] | None = None


def to_options(source: ClaudeAgentOptions | None, *, raise_on_error: bool) -> Options:
    """The loopwright Options that behave like ``source`` does in claude-agent-sdk."""
    opts = source or ClaudeAgentOptions()
    _warn_unsupported(opts)
    system_prompt, append = _system_prompt(opts)
    cwd = Path(opts.cwd) if opts.cwd is not None else None
    return Options(
        model=choose_model(opts.model),
        # The override replaces the whole model choice: a fallback named for the original
        # provider would otherwise demand that provider's key.
        fallback_model=None if model_is_overridden(opts.model) else opts.fallback_model,
        system_prompt=system_prompt,
        append_system_prompt=append,
        tools=_tools(opts.tools),
        allowed_tools=_rule_list(opts.allowed_tools),
        disallowed_tools=_renamed(opts.disallowed_tools),
        cwd=cwd,
        add_dirs=_rule_list(opts.add_dirs),
        max_turns=opts.max_turns,
        max_budget_usd=opts.max_budget_usd,
        task_budget=(opts.task_budget or {}).get("total"),
        effort=opts.effort,
        thinking=_thinking(opts),
        permission_mode=_permission_mode(opts.permission_mode),
        can_use_tool=opts.can_use_tool,
        hooks=opts.hooks,
        include_hook_events=opts.include_hook_events,
        sandbox=_sandbox(opts.sandbox, cwd),
        env=dict(opts.env),
        setting_sources=opts.setting_sources,
        mcp_servers=_mcp_servers(opts.mcp_servers),
        agents=_agents(opts.agents),
        skills=opts.skills,
        output_format=opts.output_format,
        include_partial_messages=opts.include_partial_messages,
        enable_file_checkpointing=opts.enable_file_checkpointing,
        raise_on_error=raise_on_error,
        session_id=opts.session_id,
        session_store=opts.session_store,
        resume=opts.resume,
        continue_conversation=opts.continue_conversation,
        fork_session=opts.fork_session,
        resume_at=opts.resume_session_at,
    )


def _warn_unsupported(opts: ClaudeAgentOptions) -> None:
    defaults = ClaudeAgentOptions()
    # cli_path, extra_args, max_buffer_size, stderr… configure a CLI subprocess; there is
    # none, so they are left out here and ignored without a word.
    candidates = (
        "strict_mcp_config",
        "betas",
        "permission_prompt_tool_name",
        "settings",
        "user",
        "forward_subagent_text",
        "resume_drops_turn",
        "plugins",
    )
    changed = [n for n in candidates if getattr(opts, n) != getattr(defaults, n)]
    warn_ignored("ClaudeAgentOptions", changed)


def _system_prompt(opts: ClaudeAgentOptions) -> tuple[str | None, str | None]:
    """(system_prompt, append_system_prompt). The ``claude_code`` preset becomes loopwright's
    own agent prompt (None), keeping its ``append`` text."""
    prompt = opts.system_prompt
    if prompt is None or isinstance(prompt, str):
        return prompt, opts.append_system_prompt
    kind = prompt.get("type")
    if kind == "preset":
        appended = [t for t in (prompt.get("append"), opts.append_system_prompt) if t]
        return None, "\n\n".join(appended) or None
    if kind == "file":
        path = Path(str(prompt.get("path", "")))
        try:
            return path.read_text(encoding="utf-8"), opts.append_system_prompt
        except OSError as exc:
            raise ConfigurationError(
                f"system_prompt file {path} cannot be read ({exc.strerror}); check the path"
            ) from exc
    raise ConfigurationError(
        f"system_prompt: expected a string, {{'type': 'preset', 'preset': 'claude_code'}} or "
        f"{{'type': 'file', 'path': ...}}, got type {kind!r}"
    )


def _rule_list(value: Any) -> Any:
    """A copy of a list; a lone string is passed on as it is, for Options to refuse with
    its clear message instead of being split into one rule per character here."""
    return value if isinstance(value, str) else list(value)


def _renamed(names: Any) -> Any:
    if isinstance(names, str):
        return names  # refused by Options, naming the field
    return [_RENAMED_TOOLS.get(n, n) for n in names]


def _tools(tools: list[str] | dict[str, Any] | None) -> list[str | Tool] | None:
    if isinstance(tools, str):
        return cast(Any, tools)  # refused by Options, naming the field
    if tools is None or isinstance(tools, Mapping):
        return None  # the preset (or nothing said): every built-in tool
    chosen: list[str | Tool] = []
    dropped: list[str] = []
    for name in tools:
        if name in _CLAUDE_ONLY_TOOLS:
            dropped.append(name)
        else:
            chosen.append(_RENAMED_TOOLS.get(name, name))
    if dropped:
        warn_ignored("ClaudeAgentOptions.tools", [f"the {n} tool" for n in dropped])
    return chosen


def _thinking(opts: ClaudeAgentOptions) -> dict[str, Any] | None:
    if opts.thinking is not None:
        return dict(opts.thinking)
    if opts.max_thinking_tokens:  # the deprecated spelling of an enabled budget
        return {"type": "enabled", "budget_tokens": opts.max_thinking_tokens}
    return None


def _permission_mode(mode: str | None) -> PermissionMode | None:
    if mode == "auto":
        raise ConfigurationError(
            'permission_mode="auto" (a model classifier approving prompts) is not available in '
            "loopwright; use can_use_tool for custom approval, or another mode"
        )
    return mode  # type: ignore[return-value]


def _sandbox(sandbox: Any, cwd: Path | None) -> Any:
    if not isinstance(sandbox, Mapping):
        return sandbox
    from loopwright.sandbox.config import merge_sandbox_layers, parse_sandbox_section

    base = (cwd or Path.cwd()).resolve()
    layer = parse_sandbox_section(
        {"sandbox": dict(sandbox)}, Path("ClaudeAgentOptions.sandbox"), base, Path.home()
    )
    return merge_sandbox_layers([layer])


def _mcp_servers(servers: dict[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(servers, dict):
        return dict(servers)
    # A path to (or the text of) a JSON file in the .mcp.json shape.
    text = str(servers)
    try:
        raw = json.loads(text) if text.lstrip().startswith("{") else json.loads(_read(text))
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"mcp_servers: {text[:80]!r} is not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigurationError("mcp_servers: the JSON must be an object of servers")
    found: Any = raw.get("mcpServers", raw)
    return dict(found)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"mcp_servers file {path} cannot be read: {exc.strerror}") from exc


def _agents(
    agents: Mapping[str, AgentDefinition | NativeAgentDefinition] | None,
) -> dict[str, NativeAgentDefinition] | None:
    if agents is None:
        return None
    return {
        name: d.to_native() if isinstance(d, AgentDefinition) else d for name, d in agents.items()
    }


__all__: Sequence[str] = ("AgentDefinition", "ClaudeAgentOptions", "SettingSource", "to_options")
