"""Options in, Runtime out: the model, the tools, the system prompt and the session.

Everything that turns what the user asked for into what the loop works with happens
here, once per session: model strings resolved and wrapped for retries, built-in names
turned into tools, MCP servers started, skills and subagents listed, the transcript
opened (new, resumed, continued or forked).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loopwright.context.compaction import CompactionSettings
from loopwright.context.tokens import ContextMeter, context_window
from loopwright.errors import ConfigurationError
from loopwright.messages import SystemMessage, new_uuid
from loopwright.models.base import Model
from loopwright.models.settings import check_provider_settings
from loopwright.options import Options, PermissionMode
from loopwright.permissions.build import build_permission_gate
from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.read_guard import READ_GUARD_SERVICE, ReadGuard
from loopwright.sandbox import BwrapSandbox, SandboxSettings, masks_for_read_denials
from loopwright.session.extensions import (
    add_agents,
    add_mcp_servers,
    add_skills,
    add_structured_output,
)
from loopwright.session.runtime import CountingModel, Runtime
from loopwright.sessions import (
    latest_session,
    loopwright_home,
    open_store,
    project_key,
    resume_session,
)
from loopwright.sessions import start_session as start_stored_session
from loopwright.settings.load import SETTING_SOURCES, Settings, find_project_root, load_settings
from loopwright.tools.base import SessionState, Tool
from loopwright.tools.command_wrapper import CommandWrapper

DEFAULT_SYSTEM_PROMPT = """\
You are an agent working in a software project on the user's machine. Use the tools you \
are given to inspect and change the project, run commands and check your work. Paths \
given to file tools must be absolute. When the task is done, answer with a short \
summary of what you did and what you found, without calling a tool.

Working directory: {cwd}"""


def with_retries(model: Model, options: Options) -> Model:
    """Every model call goes through the retry wrapper (also scripted ones: their error
    steps exercise the same retries users get from real providers)."""
    from loopwright.models.retry import RetryingModel

    fallback = resolve_model(options.fallback_model) if options.fallback_model else None
    return RetryingModel(model, max_retries=options.max_retries, fallback=fallback)


def resolve_model(spec: str | Model | None) -> Model:
    if spec is not None and not isinstance(spec, str):
        return spec
    from loopwright.models.registry import resolve_model as resolve_from_registry

    return resolve_from_registry(spec)


def resolve_tools(
    requested: Sequence[str | Tool] | None, disallowed: Sequence[str]
) -> dict[str, Tool]:
    """Exactly the tools the model will see, by name, in the order given."""
    entries: Sequence[str | Tool] = list(requested) if requested is not None else []
    if requested is None:
        from loopwright.tools.builtins import BUILTIN_TOOL_NAMES

        entries = list(BUILTIN_TOOL_NAMES)
    removed = {name for name in disallowed if "(" not in name}
    tools: dict[str, Tool] = {}
    for entry in entries:
        if isinstance(entry, str) and entry in EXTENSION_TOOL_NAMES:
            continue  # made later from the session's agents and skills
        tool = _builtin(entry) if isinstance(entry, str) else entry
        if tool.name in removed:
            continue
        if tool.name in tools:
            raise ConfigurationError(
                f"two tools are named {tool.name!r}; tool names must be unique — rename one"
            )
        tools[tool.name] = tool
    return tools


# Tools built from the session's own configuration rather than from the built-in registry.
EXTENSION_TOOL_NAMES = frozenset({"Agent", "Skill"})


def _wants(options: Options, name: str) -> bool:
    """Whether the model should get an extension tool: listed in ``tools`` (or all tools
    requested), and not removed by ``disallowed_tools``."""
    if name in options.disallowed_tools:
        return False
    return options.tools is None or any(entry == name for entry in options.tools)


def _builtin(name: str) -> Tool:
    # Imported on demand: sessions made only of @tool functions never load the built-ins.
    from loopwright.tools.builtins import builtin_tool

    return builtin_tool(name)


def build_system_prompt(options: Options, cwd: Path, memory: str = "") -> str:
    """The base prompt, project memory (AGENTS.md / CLAUDE.md, sent with every request and
    inside the cached prefix), then the user's appended text."""
    base = options.system_prompt
    prompt = DEFAULT_SYSTEM_PROMPT.format(cwd=cwd) if base is None else base
    if memory:
        prompt = f"{prompt}\n\n{memory}"
    if options.append_system_prompt:
        prompt = f"{prompt}\n\n{options.append_system_prompt}"
    return prompt


def setting_sources(options: Options) -> tuple[str, ...]:
    return SETTING_SOURCES if options.setting_sources is None else tuple(options.setting_sources)


def create_runtime(options: Options, *, parent_tool_use_id: str | None = None) -> Runtime:
    """The session's pieces, not yet connected to a transcript (see :func:`open_runtime`)."""
    cwd = Path(options.cwd or os.getcwd()).resolve()
    if not cwd.is_dir():
        raise ConfigurationError(f"cwd {cwd} is not a directory; pass an existing directory")
    sources = setting_sources(options)
    settings = (
        load_settings(
            cwd,
            sources,
            trust_project=options.trust_project,
            extra_read_deny=[r for r in options.disallowed_tools if "(" in r],
        )
        if sources
        else None
    )
    provider = resolve_model(options.model)
    # A setting the provider cannot send fails here, not on the first request.
    check_provider_settings(provider, options.model_settings, options.server_tools)
    model = with_retries(provider, options)
    # A provider knows its own window ([1m] variants, user overrides); else the table.
    known = getattr(model, "context_window", None)
    window = (
        options.context_window
        or (known if isinstance(known, int) else None)
        or (context_window(model.name))
    )
    session_id = options.session_id or new_uuid()
    gate = _gate(options, cwd, settings, session_id)
    rt = Runtime(
        options=options,
        model=model,
        tools=resolve_tools(options.tools, options.disallowed_tools),
        state=SessionState(cwd=cwd),
        session_id=session_id,
        system_prompt=build_system_prompt(options, cwd, settings.memory if settings else ""),
        parent_tool_use_id=parent_tool_use_id,
        gate=gate,
        hooks=gate.hooks,
        meter=ContextMeter(window),
        compaction=CompactionSettings(
            threshold=options.compaction_threshold,
            instructions=compact_instructions(settings.memory) if settings else None,
        ),
        base_working_dirs=gate.policy.working_dirs,
    )
    if getattr(provider, "supports_reasoning", True) is False and (
        options.effort is not None or options.thinking is not None
    ):
        rt.notices.append(
            f"{provider.name} has no reasoning controls: the effort and thinking options are "
            "ignored for it"
        )
    if settings is not None:
        rt.notices.extend(settings.warnings)
    rt.notices.extend(gate.rule_warnings)

    def subagent_gate(mode: PermissionMode, hook_fields: dict[str, Any]) -> PermissionGate:
        narrowed = dataclasses.replace(options, permission_mode=mode)
        return _gate(narrowed, cwd, settings, session_id, hook_fields=hook_fields)

    rt.gate_factory = subagent_gate
    _services(rt, settings)
    rt.services[READ_GUARD_SERVICE] = ReadGuard.from_rules(
        gate.policy.rules.deny,
        gate.policy.working_dirs[0] if gate.policy.working_dirs else cwd,
        gate.policy.home,
    )
    return rt


def _gate(
    options: Options, cwd: Path, settings: Settings | None, session_id: str, **extra: Any
) -> PermissionGate:
    return build_permission_gate(
        cwd=cwd,
        permission_mode=options.permission_mode,
        allowed_tools=options.allowed_tools,
        disallowed_tools=options.disallowed_tools,
        can_use_tool=options.can_use_tool,
        hooks=options.hooks,
        add_dirs=options.add_dirs,
        settings=settings,
        session_id=session_id,
        **extra,
    )


def _services(rt: Runtime, settings: Settings | None) -> None:
    """What tools may use: the session's model (WebFetch summaries, counted in the totals),
    the question callback, the search backend, and how to run commands (env, sandbox)."""
    options = rt.options
    rt.services["model"] = CountingModel(rt)
    if options.ask_user is not None:
        rt.services["ask_user"] = options.ask_user
    if options.web_search_backend is not None:
        rt.services["web_search"] = options.web_search_backend
    env = {**(settings.env if settings else {}), **options.env}
    sandbox_settings = options.sandbox or (settings.sandbox if settings else None)
    sandbox: BwrapSandbox | None = None
    if sandbox_settings is not None and sandbox_settings.enabled:
        sandbox = BwrapSandbox(
            _with_denied_paths_masked(sandbox_settings, rt, settings),
            rt.working_dirs,
            quarantine_dir=session_data_dir(rt.state.cwd, rt.session_id) / "quarantine",
        )
        rt.state.resources["sandbox"] = sandbox
        rt.notices.extend(sandbox.notices)
        if not sandbox.available:
            rt.notices.append(
                "the sandbox is not available, so Bash runs UNSANDBOXED "
                f"(allow_unsandboxed=True): {sandbox.unavailable_reason}"
            )
    if env or sandbox is not None:
        rt.services["command_wrapper"] = CommandWrapper(env, sandbox)


def session_data_dir(cwd: Path, session_id: str) -> Path:
    """Files a session keeps beside its transcript (the sandbox's quarantine)."""
    return loopwright_home() / "projects" / project_key(cwd) / session_id


def _with_denied_paths_masked(
    sandbox: SandboxSettings, rt: Runtime, settings: Settings | None
) -> SandboxSettings:
    """Paths that Read deny rules (and every settings file's denyRead) name are masked in
    the sandbox too, also when the sandbox settings came from Options."""
    extra = settings.sandbox.masked_paths if settings and settings.sandbox else ()
    if isinstance(rt.gate, PermissionGate):
        policy = rt.gate.policy
        extra += masks_for_read_denials(policy.rules.deny, rt.state.cwd, policy.home)
    masked = tuple(dict.fromkeys((*sandbox.masked_paths, *extra)))
    return dataclasses.replace(sandbox, masked_paths=masked)


def compact_instructions(memory: str) -> str | None:
    """A "compact instructions" section of AGENTS.md/CLAUDE.md guides the summaries."""
    match = re.search(
        r"^#+\s*compact(?:ion)? instructions\s*$(.*?)(?=^#+\s|\Z)", memory, re.I | re.M | re.S
    )
    return match.group(1).strip() or None if match else None


async def open_runtime(options: Options) -> Runtime:
    """A runtime with its extensions started and its transcript opened."""
    rt = create_runtime(options)
    try:
        await _add_extensions(rt)
        await _open_session(rt)
    except BaseException:
        await rt.aclose()  # MCP servers may already be running
        raise
    rt.pending_notices.extend(
        SystemMessage("informational", {"message": notice}) for notice in rt.notices
    )
    return rt


async def _add_extensions(rt: Runtime) -> None:
    options = rt.options
    sources = setting_sources(options)
    root = find_project_root(rt.state.cwd)
    mcp_configs: dict[str, Any] = {}
    project_mcp = root / ".mcp.json"
    if "project" in sources and project_mcp.is_file():
        if options.trust_project:
            from loopwright.mcp import load_mcp_json

            mcp_configs.update(load_mcp_json(project_mcp))
        else:  # a stdio server in an untrusted repository is code execution at start-up
            rt.notices.append(f"{project_mcp} was not loaded: trust_project=False")
    mcp_configs.update(options.mcp_servers)
    await add_mcp_servers(rt, mcp_configs)
    add_skills(
        rt,
        _config_dirs(sources, root, "skills", trusted=options.trust_project),
        _wants(options, "Skill"),
    )
    add_agents(
        rt,
        _config_dirs(sources, root, "agents", trusted=options.trust_project),
        _wants(options, "Agent"),
    )
    add_structured_output(rt)


def _config_dirs(sources: Sequence[str], root: Path, kind: str, *, trusted: bool) -> list[Path]:
    """``.claude/<kind>`` and ``.loopwright/<kind>`` of the user, then of the project (later
    wins on a name clash). An untrusted repository's own agents and skills are not loaded:
    they would steer the model with instructions its author chose."""
    bases: list[Path] = []
    if "user" in sources:
        bases.append(Path.home())
    if ("project" in sources or "local" in sources) and trusted:
        bases.append(root)
    return [base / directory / kind for base in bases for directory in (".claude", ".loopwright")]


async def _open_session(rt: Runtime) -> None:
    options = rt.options
    wants_history = options.resume is not None or options.continue_conversation
    if not options.persist_session and not wants_history:
        return
    store = open_store(options.session_store, cwd=rt.state.cwd)
    resume_id = options.resume
    if resume_id is None and options.continue_conversation:
        resume_id = await latest_session(store, rt.state.cwd)
    if resume_id is None:
        opened = await start_stored_session(store, rt.session_id, rt.state.cwd)
    else:
        opened = await resume_session(
            store,
            resume_id,
            resume_at=options.resume_at,
            fork=options.fork_session,
            new_session_id=options.session_id if options.fork_session else None,
        )
    rt.session_id = opened.session_id
    rt.session_lock = opened.lock
    rt.recorder = opened.recorder if options.persist_session else None
    path_of = getattr(store, "path_of", None)  # file-backed stores can say where
    transcript = path_of(rt.session_id) if path_of is not None else None
    if transcript is not None:
        rt.transcript_path = str(transcript)
        if isinstance(rt.gate, PermissionGate):
            rt.gate.transcript_path = rt.transcript_path
    # A store the user handed us may serve other sessions: only close the ones we opened.
    rt.owns_store = options.session_store is None or isinstance(options.session_store, str)
    restored = opened.restored
    if restored is not None:
        rt.history = list(restored.messages)
        restored.state.apply_to(rt.state)
        rt.totals.usage = restored.usage
        rt.totals.cost_usd = restored.total_cost_usd
        rt.totals.model_usage = {k: dict(v) for k, v in restored.state.model_usage.items()}
        rt.num_turns_total = restored.num_turns
        rt.pending_notices.extend(
            SystemMessage("informational", {"message": warning}) for warning in restored.warnings
        )
