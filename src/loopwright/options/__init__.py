"""Options: every knob of a run, in one dataclass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from loopwright.hooks.runner import HookMatcher
from loopwright.models.base import Effort, MinimalModel, ThinkingConfig
from loopwright.models.settings import ModelSettings, ServerTool
from loopwright.options.validation import validate_agent_definition, validate_options
from loopwright.tools.base import MinimalTool
from loopwright.types import ApprovalDecision, AskUser, CanUseTool, PermissionMode

if TYPE_CHECKING:  # import cost only (MCP, the sandbox, stores load when a session uses them)
    from loopwright.guardrails import Guardrail
    from loopwright.mcp.config import McpServerConfig
    from loopwright.mcp.host import ElicitationHandler
    from loopwright.sandbox.bwrap import SandboxSettings
    from loopwright.stores.base import MinimalStore
    from loopwright.tools.structured_output import OutputFormat
    from loopwright.tools.web_search import SearchBackend


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentDefinition:
    """A subagent: what it is for (shown to the model), its prompt, tools and limits."""

    description: str
    prompt: str
    tools: list[str] | None = None  # None = the parent's tools (minus Agent)
    model: str | None = None  # None or "inherit" = the parent's model
    # Provider errors (429, 5xx, overloads, dropped streams) are retried with backoff;
    # after repeated overloads the fallback model takes over.
    max_retries: int = 4
    fallback_model: str | MinimalModel | None = None

    effort: Effort | None = None
    max_turns: int | None = None
    permission_mode: PermissionMode | None = None
    # Fields set here replace the parent's model_settings for this agent.
    model_settings: ModelSettings | None = None

    def __post_init__(self) -> None:
        validate_agent_definition(self)  # a wrong field fails here, naming it


@dataclass(kw_only=True)
class Options:
    """How a run behaves. Every field has an effect; ``None`` means the default."""

    # The model: a model string (``anthropic:…``, ``openai:…``, ``openai-chat:…``,
    # ``scripted:path``) or a Model object such as ``ScriptedModel``.
    model: str | MinimalModel | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    # Exactly the tools the model sees: built-in names and Tool objects. None = every built-in.
    tools: Sequence[str | MinimalTool] | None = None
    # A bare tool name here removes that tool entirely.
    disallowed_tools: list[str] = field(default_factory=list[str])
    cwd: str | Path | None = None
    # More directories the file tools may work in besides cwd.
    add_dirs: Sequence[str | Path] = ()

    # Limits.
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tokens: int | None = None
    task_budget: int | None = None
    tool_timeout_seconds: float = 600.0

    # Provider errors (429, 5xx, overloads, dropped streams) are retried with backoff;
    # after repeated overloads the fallback model takes over.
    max_retries: int = 4
    fallback_model: str | MinimalModel | None = None

    effort: Effort | None = None
    thinking: ThinkingConfig | dict[str, Any] | None = None
    # Temperature, tool_choice, stop, service tier, extra headers/body… (per provider;
    # one it cannot send is refused when the session starts).
    model_settings: ModelSettings | None = None
    # The provider's hosted tools: "web_search", "web_fetch", "code_execution", or the
    # provider's own tool dict. Their calls and results stay in the transcript.
    server_tools: Sequence[ServerTool] = ()

    # Permissions: the mode, rules ("Bash(npm test *)", "Read(./src/**)", "mcp__github"…;
    # specifiers in disallowed_tools are deny rules), and the callback for undecided calls.
    permission_mode: PermissionMode | None = None
    allowed_tools: list[str] = field(default_factory=list[str])
    # can_use_tool(name, input, ctx) -> PermissionResultAllow | PermissionResultDeny.
    can_use_tool: CanUseTool | None = None
    # {event: [HookMatcher(matcher, [callback], timeout)]}; command hooks come from settings.
    hooks: dict[str, list[HookMatcher]] | None = None
    include_hook_events: bool = False
    # Bash inside bubblewrap: loopwright.sandbox.SandboxSettings(enabled=True, ...).
    sandbox: SandboxSettings | None = None
    env: dict[str, str] = field(default_factory=dict[str, str])

    # Which settings to load from disk: "user" (~/.claude, ~/.loopwright), "project" and
    # "local" (the repository's): settings.json, AGENTS.md/CLAUDE.md, skills, agents,
    # .mcp.json. None = all three, as Claude Code does; [] = nothing from disk.
    setting_sources: Sequence[Literal["user", "project", "local"]] | None = None
    # False: a repository's own allow rules and extra directories are ignored (its deny and
    # ask rules still apply) — for running agents on code you did not write.
    trust_project: bool = True
    # True: a rule that can never match (``Bsh(echo *)``) or an unknown settings key
    # (``permisions``) stops the session at start instead of being a warning in ``init``.
    strict_settings: bool = False
    # False: nothing at all from the checkout — no project or local settings, memory files,
    # skills, agents or .mcp.json, whatever setting_sources says (CI on code you did not
    # write: `loopwright --no-project-settings`). The user's own sources still load.
    project_settings: bool = True

    # Extensions: MCP servers by name (stdio/sse/http configs, or create_sdk_mcp_server()),
    # subagents for the Agent tool, skills (None = all found), a final structured answer.
    mcp_servers: Mapping[str, McpServerConfig | Mapping[str, Any]] = field(
        default_factory=dict[str, Any]
    )
    mcp_connect_timeout: float = 30.0
    # A server asks the user for input mid-call (MCP elicitation); None: declined with a reason.
    on_elicitation: ElicitationHandler | None = None
    # Let MCP servers ask the session's model for completions (MCP sampling); off by default.
    mcp_sampling: bool = False
    # HTTP servers' OAuth tokens are refreshed and used; False: no OAuth for any server.
    mcp_oauth: bool = True
    agents: dict[str, AgentDefinition] | None = None
    skills: list[str] | Literal["all"] | None = None
    # {"type": "json_schema", "schema": {...}} or a pydantic model class.
    output_format: dict[str, Any] | type[Any] | OutputFormat | None = None
    # Input, output and tool guardrails (loopwright.guardrails); a tripped one ends the run
    # with subtype error_guardrail_tripped. Handoffs are tools: loopwright.handoff().
    guardrails: Sequence[Guardrail] = ()
    # Snapshot files that Write/Edit change, per prompt, for Client.rewind_files().
    enable_file_checkpointing: bool = False
    # Defer MCP tool definitions behind ToolSearch when they would take more than this
    # share of the context window (True = always, False = never).
    tool_search: bool | float = 0.1

    # AskUserQuestion goes to this callback (sync or async: questions -> answers dict);
    # without one the tool is denied with a clear message.
    ask_user: AskUser | None = None
    # WebSearch's backend (loopwright.tools.web_search.SearchBackend).
    web_search_backend: SearchBackend | None = None

    include_partial_messages: bool = False
    raise_on_error: bool = False

    # Sessions: every message is appended to a transcript as it happens.
    session_id: str | None = None
    # None/"jsonl" (under $LOOPWRIGHT_HOME), "jsonl:<home>", "sqlite:<path>",
    # "postgresql://…", or any SessionStore object.
    session_store: MinimalStore | str | None = None
    persist_session: bool = True
    resume: str | None = None
    continue_conversation: bool = False
    fork_session: bool = False
    resume_at: str | None = None
    # Approvals (human in the loop across processes): calls matching these rules (like
    # allowed_tools) are not run but wait for a person — the run ends pending_approval.
    defer_tools: Sequence[str] = ()
    # Past this many seconds after a call was deferred it is denied, not run.
    approval_timeout_seconds: float | None = None
    # Answers for the pending calls of the session being resumed, by tool_use_id: allow
    # (optionally with updated_input, or updated_permissions=["Rule"] to allow such calls
    # for the rest of the session) or deny with a message. See docs in README (Approvals).
    approvals: Mapping[str, ApprovalDecision] | None = None

    # Context: auto-compaction once the context passes this share of the window.
    compaction_threshold: float = 0.8
    context_window: int | None = None

    def __post_init__(self) -> None:
        # Fields are checked when Options is built, with an error naming the field: a
        # string where a list of rules belongs, an unknown mode, a negative budget …
        validate_options(self)
