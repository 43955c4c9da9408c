"""Options in, a Session out: the Agent, its Conversation and its Spend.

Everything that turns what the user asked for into what the loop works with happens
here, once per session: settings loaded, the model string resolved and wrapped for
retries, built-in names turned into tools, MCP servers started, skills and subagents
listed, the transcript opened (new, resumed, continued or forked). Extensions add to an
AgentDraft; the Agent is built from it once, frozen.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loopwright.context.compaction import CompactionSettings
from loopwright.errors import ConfigurationError
from loopwright.ids import check_id
from loopwright.messages import SystemMessage, new_uuid
from loopwright.models.base import Model
from loopwright.options import Options
from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.paths.read_guard import ReadGuard
from loopwright.permissions.rules import RuleSet
from loopwright.session.agent import Agent, window_of
from loopwright.session.approvals import approval_rules, take_approvals
from loopwright.session.config_check import rule_problems, settings_key_problems
from loopwright.session.conversation import Conversation
from loopwright.session.extensions import (
    AgentDraft,
    add_agents,
    add_mcp_servers,
    add_skills,
    add_structured_output,
)
from loopwright.session.permission_gate import build_permission_gate
from loopwright.session.resolve import resolve_model, resolve_tools, with_retries
from loopwright.session.session import CountingModel, Session, aclose_each, meter_for
from loopwright.session.spend import require_price_for_budget
from loopwright.settings.load import (
    CHECKOUT_SOURCES,
    SETTING_SOURCES,
    Settings,
    find_project_root,
    load_settings,
)
from loopwright.stores import (
    SessionError,
    SessionStore,
    latest_session,
    loopwright_home,
    open_store,
    project_key,
    resume_session,
    start_transcript,
)
from loopwright.tools.base import SessionState, ToolServices
from loopwright.tools.command_wrapper import CommandWrapper
from loopwright.tools.web_address import WebFetchGuard
from loopwright.types import PermissionMode

if TYPE_CHECKING:
    from loopwright.sandbox import BwrapSandbox, SandboxSettings
    from loopwright.session.checkpoints import FileCheckpoints
    from loopwright.stores.transcript import RestoredSession

DEFAULT_SYSTEM_PROMPT = """\
You are an agent working in a software project on the user's machine. Use the tools you \
are given to inspect and change the project, run commands and check your work. Paths \
given to file tools must be absolute. When the task is done, answer with a short \
summary of what you did and what you found, without calling a tool.

Working directory: {cwd}"""


def _wants(options: Options, name: str) -> bool:
    """Whether the model should get an extension tool: listed in ``tools`` (or all tools
    requested), and not removed by ``disallowed_tools``."""
    if name in options.disallowed_tools:
        return False
    return options.tools is None or any(entry == name for entry in options.tools)


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
    chosen = SETTING_SOURCES if options.setting_sources is None else tuple(options.setting_sources)
    if not options.project_settings:  # nothing from the checkout, whatever the sources say
        return tuple(source for source in chosen if source not in CHECKOUT_SOURCES)
    return chosen


@dataclass(frozen=True, slots=True)
class _Base:
    """What assembly knows before extensions start: where, which settings, which model."""

    cwd: Path
    settings: Settings | None
    model: Model  # the provider inside the retry wrapper
    gate: PermissionGate
    session_id: str
    reasoning_ignored: bool  # effort / thinking asked of a model without reasoning controls


def _base(options: Options) -> _Base:
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
    if options.model_settings is not None or options.server_tools:
        # A setting the provider cannot send fails here, not on the first request.
        provider.check_settings(options.model_settings, options.server_tools)
    require_price_for_budget(options.max_budget_usd, options.task_budget, provider.name)
    session_id = options.session_id or new_uuid()
    gate = _gate(options, cwd, settings, session_id)
    reasoning_ignored = not provider.supports_reasoning and (
        options.effort is not None or options.thinking is not None
    )
    return _Base(
        cwd, settings, with_retries(provider, options), gate, session_id, reasoning_ignored
    )


def _start_notices(base: _Base) -> list[str]:
    notices: list[str] = []
    if base.reasoning_ignored:
        notices.append(
            f"{base.model.name} has no reasoning controls: the effort and thinking options "
            "are ignored for it"
        )
    if base.settings is not None:
        notices.extend(base.settings.warnings)
    notices.extend(base.gate.rule_warnings)
    return notices


def _gate(
    options: Options, cwd: Path, settings: Settings | None, session_id: str, **extra: Any
) -> PermissionGate:
    gate = build_permission_gate(
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
    gate.defer_rules = approval_rules(options, cwd)
    return gate


def _services(
    options: Options, base: _Base, state: SessionState, notices: list[str]
) -> ToolServices:
    """What tools may use: the question callback, the search backend, the read guard, and
    how to run commands (env, sandbox). The session's own model is added with the Session."""
    policy = base.gate.policy
    return ToolServices(
        read_guard=ReadGuard.from_rules(
            policy.rules.deny,
            policy.working_dirs[0] if policy.working_dirs else base.cwd,
            policy.home,
        ),
        # WebFetch checks the addresses it connects to against the same deny rules.
        web_fetch_guard=WebFetchGuard.from_specifiers(
            r.specifier for r in policy.rules.deny if r.tool == "WebFetch" and r.specifier
        ),
        ask_user=options.ask_user,
        web_search=options.web_search_backend,
        command_wrapper=_command_wrapper(options, base, state, notices),
    )


def _command_wrapper(
    options: Options, base: _Base, state: SessionState, notices: list[str]
) -> CommandWrapper | None:
    """How Bash runs commands: the session's env and sandbox (None when it has neither)."""
    settings = base.settings
    policy = base.gate.policy
    env = {**(settings.env if settings else {}), **options.env}
    sandbox_settings = options.sandbox or (settings.sandbox if settings else None)
    sandbox: BwrapSandbox | None = None
    if sandbox_settings is not None and sandbox_settings.enabled:
        # start-up: the sandbox's code loads when a session has one
        from loopwright.sandbox import BwrapSandbox
        from loopwright.sandbox.deny_masks import FloatingMasks

        sandbox = BwrapSandbox(
            _with_denied_paths_masked(sandbox_settings, base),
            policy.working_dirs or (base.cwd,),
            quarantine_dir=session_data_dir(base.cwd, base.session_id) / "quarantine",
            floating_masks=FloatingMasks.from_rules(
                policy.rules.deny, policy.working_dirs or (base.cwd,), policy.home
            ),
        )
        state.resources["sandbox"] = sandbox
        notices.extend(sandbox.notices)
        if not sandbox.available:
            notices.append(
                "the sandbox is not available, so Bash runs UNSANDBOXED "
                f"(allow_unsandboxed=True): {sandbox.unavailable_reason}"
            )
    return CommandWrapper(env, sandbox) if env or sandbox is not None else None


def _checkpoints() -> FileCheckpoints:
    from loopwright.session.checkpoints import FileCheckpoints  # start-up: an opt-in

    return FileCheckpoints()


def session_data_dir(cwd: Path, session_id: str) -> Path:
    """Files a session keeps beside its transcript (the sandbox's quarantine)."""
    return loopwright_home() / "projects" / project_key(cwd) / check_id(session_id)


def _with_denied_paths_masked(sandbox: SandboxSettings, base: _Base) -> SandboxSettings:
    """Paths that Read deny rules (and every settings file's denyRead) name are masked in
    the sandbox too, also when the sandbox settings came from Options."""
    from loopwright.sandbox.deny_masks import masks_for_read_denials  # start-up: see above

    settings = base.settings
    extra = settings.sandbox.masked_paths if settings and settings.sandbox else ()
    policy = base.gate.policy
    extra += masks_for_read_denials(policy.rules.deny, base.cwd, policy.home)
    masked = tuple(dict.fromkeys((*sandbox.masked_paths, *extra)))
    return dataclasses.replace(sandbox, masked_paths=masked)


def compact_instructions(memory: str) -> str | None:
    """A "compact instructions" section of AGENTS.md/CLAUDE.md guides the summaries."""
    match = re.search(
        r"^#+\s*compact(?:ion)? instructions\s*$(.*?)(?=^#+\s|\Z)", memory, re.I | re.M | re.S
    )
    return match.group(1).strip() or None if match else None


async def assemble_session(options: Options) -> Session:
    """Options in, a Session out: its Agent built, extensions started, transcript opened."""
    base = _base(options)
    state = SessionState(cwd=base.cwd)
    notices = _start_notices(base)
    try:
        services = _services(options, base, state, notices)
        draft = AgentDraft(
            tools=resolve_tools(options.tools, options.disallowed_tools),
            system_prompt=build_system_prompt(
                options, base.cwd, base.settings.memory if base.settings else ""
            ),
            window=window_of(base.model, options),
            notices=notices,
        )
        await _add_extensions(draft, options, state)
        _check_configuration(options, base, draft)
        conversation, session_id, restored = await _open_transcript(options, base)
    except BaseException:
        # MCP servers may already be running.
        await aclose_each(*state.resources.values(), base.model)
        raise
    agent = _agent(options, base, draft)
    session = Session(
        agent=agent,
        session_id=session_id,
        state=state,
        conversation=conversation,
        services=services,
        meter=meter_for(agent),
        checkpoints=_checkpoints() if options.enable_file_checkpointing else None,
    )
    conversation.snapshot = session.snapshot
    # Tools' own calls count in the totals; the model exists only with the Session.
    session.services = dataclasses.replace(services, model=CountingModel(session))
    session.pending_notices.extend(
        SystemMessage("informational", {"message": notice}) for notice in draft.notices
    )
    if restored is not None:
        _restore(session, restored)
    try:
        take_approvals(session, options)
    except BaseException:
        await session.aclose()
        raise
    return session


def _check_configuration(options: Options, base: _Base, draft: AgentDraft) -> None:
    """Rules that can name no tool and misspelt settings keys: warnings in ``init``, or a
    start-up error with ``strict_settings``."""
    servers = [str(entry.get("name", "")) for entry in draft.mcp_status]
    problems = rule_problems(
        base.gate.policy.rules, [*draft.tools, *draft.agent_names, *(options.agents or {})], servers
    )
    if base.settings is not None:
        problems.extend(settings_key_problems(base.settings.files))
    if problems and options.strict_settings:
        raise ConfigurationError(
            "strict_settings: " + "; ".join(problems) + "; fix these entries or turn "
            "strict_settings (--strict-settings) off to keep them as warnings"
        )
    draft.notices.extend(problems)


def _agent(options: Options, base: _Base, draft: AgentDraft) -> Agent:
    settings = base.settings

    def subagent_gate(mode: PermissionMode, hook_fields: Mapping[str, Any]) -> PermissionGate:
        narrowed = dataclasses.replace(options, permission_mode=mode)
        return _gate(narrowed, base.cwd, settings, base.session_id, hook_fields=hook_fields)

    return Agent(
        # A copy: Options is a plain dataclass the caller may go on editing (the next
        # query's options); the Agent must not change under a running session.
        options=dataclasses.replace(options),
        model=base.model,
        tools=draft.tools,
        system_prompt=draft.system_prompt,
        gate=base.gate,
        hooks=base.gate.hooks,
        working_dirs=base.gate.policy.working_dirs or (base.cwd,),
        compaction=CompactionSettings(
            threshold=options.compaction_threshold,
            instructions=compact_instructions(settings.memory) if settings else None,
        ),
        output_format=draft.output_format,
        deferred=draft.deferred,
        guardrails=tuple(options.guardrails),
        gate_factory=subagent_gate,
        mcp_status=tuple(draft.mcp_status),
        agent_names=tuple(draft.agent_names),
        skill_names=tuple(draft.skill_names),
    )


async def _add_extensions(draft: AgentDraft, options: Options, state: SessionState) -> None:
    sources = setting_sources(options)
    root = find_project_root(state.cwd)
    mcp_configs: dict[str, Any] = {}
    project_mcp = root / ".mcp.json"
    if "project" in sources and project_mcp.is_file():
        if options.trust_project:
            from loopwright.mcp import load_mcp_json

            mcp_configs.update(load_mcp_json(project_mcp))
        else:  # a stdio server in an untrusted repository is code execution at start-up
            draft.notices.append(f"{project_mcp} was not loaded: trust_project=False")
    mcp_configs.update(options.mcp_servers)
    await add_mcp_servers(draft, options, state, mcp_configs)
    trusted = options.trust_project
    add_skills(
        draft,
        options,
        _config_dirs(sources, root, "skills", trusted=trusted),
        _wants(options, "Skill"),
    )
    add_agents(
        draft,
        options,
        _config_dirs(sources, root, "agents", trusted=trusted),
        _wants(options, "Agent"),
        checkout=None if root == Path.home() else root,
    )
    add_structured_output(draft, options)


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


async def _open_transcript(
    options: Options, base: _Base
) -> tuple[Conversation, str, RestoredSession | None]:
    """The session's transcript: new, resumed, continued or forked (or none at all)."""
    wants_history = options.resume is not None or options.continue_conversation
    if not options.persist_session and not wants_history:
        return Conversation(), base.session_id, None
    store = open_store(options.session_store, cwd=base.cwd)
    resume_id = options.resume
    if resume_id is None and options.continue_conversation:
        resume_id = await latest_session(store, base.cwd)
    if resume_id is None:
        if options.session_id is not None:
            await _refuse_existing_id(store, options.session_id)
        opened = await start_transcript(store, base.session_id, base.cwd)
    else:
        opened = await resume_session(
            store,
            resume_id,
            resume_at=options.resume_at,
            fork=options.fork_session,
            new_session_id=options.session_id if options.fork_session else None,
        )
    transcript = store.path_of(opened.session_id)  # file-backed stores can say where
    transcript_path = str(transcript) if transcript is not None else None
    base.gate.transcript_path = transcript_path
    conversation = Conversation(
        recorder=opened.recorder if options.persist_session else None,
        transcript_path=transcript_path,
        lock=opened.lock,
        # A store the user handed us may serve other sessions: only close ones we opened.
        owns_store=options.session_store is None or isinstance(options.session_store, str),
    )
    return conversation, opened.session_id, opened.restored


async def _refuse_existing_id(store: SessionStore, session_id: str) -> None:
    """A session id names one conversation: a new session under an id that exists would
    start a second conversation in its transcript, and hide the first from show/resume."""
    if await store.load(session_id):
        raise SessionError(
            f"a session with id {session_id!r} already exists; to continue it, resume it "
            f"(resume={session_id!r}, or --resume {session_id}); to branch from it, fork it "
            "(add fork_session=True / --fork-session); or give a new id for a new session"
        )


def _restore(session: Session, restored: RestoredSession) -> None:
    session.conversation.messages = list(restored.messages)
    restored.state.apply_to(session.state)
    totals = session.spend.total
    totals.usage = restored.usage
    totals.cost_usd = restored.total_cost_usd
    totals.model_usage = {k: dict(v) for k, v in restored.state.model_usage.items()}
    session.spend.turns = restored.num_turns
    session.pending = restored.pending
    if restored.session_rules:
        gate = session.agent.gate
        assert isinstance(gate, PermissionGate)
        anchor = session.state.cwd
        added = RuleSet.from_strings(allow=restored.session_rules, anchor=anchor, source="session")
        gate.policy.rules = gate.policy.rules + added
        gate.approved_rules = (*gate.approved_rules, *added.allow)
    session.pending_notices.extend(
        SystemMessage("informational", {"message": warning}) for warning in restored.warnings
    )
