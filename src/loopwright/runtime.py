"""A session's resolved pieces: model, tools, system prompt, state and running totals.

Options say what the user wants; a Runtime is what the loop works with. It lives as long
as the session (a ``Client`` keeps one across queries).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.context.compaction import CompactionBreaker, CompactionSettings
from loopwright.context.tokens import ContextMeter, context_window
from loopwright.cost import cost_of
from loopwright.errors import ConfigurationError
from loopwright.messages import ConversationMessage, Message, SystemMessage, Usage, new_uuid
from loopwright.models.base import Model, ThinkingConfig, ToolSpec
from loopwright.options import Options
from loopwright.sessions import SessionRecorder, latest_session, open_store, resume_session
from loopwright.sessions import start_session as start_stored_session
from loopwright.sessions.transcript import StateSnapshot
from loopwright.tools.base import OpenGate, SessionState, Tool, ToolGate

VERSION = "0.1.0"

DEFAULT_SYSTEM_PROMPT = """\
You are an agent working in a software project on the user's machine. Use the tools you \
are given to inspect and change the project, run commands and check your work. Paths \
given to file tools must be absolute. When the task is done, answer with a short \
summary of what you did and what you found, without calling a tool.

Working directory: {cwd}"""


@dataclass(slots=True)
class Totals:
    """What a session has spent, across every query (subagents included)."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    api_seconds: float = 0.0
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])

    def add(self, model: str, usage: Usage) -> None:
        self.usage = self.usage + usage
        cost = cost_of(model, usage)
        # One unpriced model makes the total unknown: None, never a guess.
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost
        entry = self.model_usage.setdefault(
            model,
            {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cost_usd": 0.0,
            },
        )
        for key, value in usage.to_dict().items():
            entry[key] += value
        entry["cost_usd"] = (
            None if cost is None or entry["cost_usd"] is None else (entry["cost_usd"] + cost)
        )


@dataclass(slots=True)
class Runtime:
    options: Options
    model: Model
    tools: dict[str, Tool]
    state: SessionState
    session_id: str
    system_prompt: str
    gate: ToolGate = field(default_factory=OpenGate)
    history: list[ConversationMessage] = field(default_factory=list[ConversationMessage])
    totals: Totals = field(default_factory=Totals)
    parent_tool_use_id: str | None = None
    # Set by interrupt(); the loop checks it and cancels whatever is running.
    interrupt_event: asyncio.Event = field(default_factory=asyncio.Event)
    current_work: asyncio.Task[Any] | None = None
    services: dict[str, Any] = field(default_factory=dict[str, Any])
    created_at: float = field(default_factory=time.monotonic)
    # Sessions: where messages are recorded (None when not persisted, and for subagents).
    recorder: SessionRecorder | None = None
    owns_store: bool = False
    num_turns_total: int = 0
    # Messages to show at the start of the next run (resume warnings, notices).
    pending_notices: list[Message] = field(default_factory=list[Message])
    # Context accounting and compaction.
    meter: ContextMeter = field(default_factory=lambda: ContextMeter(128_000))
    breaker: CompactionBreaker = field(default_factory=CompactionBreaker)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)

    @property
    def tool_specs(self) -> list[ToolSpec]:
        return [ToolSpec(t.name, t.description, t.input_schema) for t in self.tools.values()]

    @property
    def working_dirs(self) -> tuple[Path, ...]:
        return (self.state.cwd,)

    @property
    def window(self) -> int:
        return self.meter.window

    def snapshot(self) -> StateSnapshot:
        return StateSnapshot.capture(
            self.state,
            usage=self.totals.usage,
            total_cost_usd=self.totals.cost_usd,
            model_usage=self.totals.model_usage,
            num_turns=self.num_turns_total,
        )

    def interrupt(self) -> None:
        self.interrupt_event.set()
        if self.current_work is not None and not self.current_work.done():
            self.current_work.cancel()

    def thinking(self) -> ThinkingConfig | None:
        raw = self.options.thinking
        if raw is None or isinstance(raw, ThinkingConfig):
            return raw
        return ThinkingConfig(**raw)

    async def aclose(self) -> None:
        """Release what tools left running (background shells, connections)."""
        for resource in list(self.state.resources.values()):
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                await closer()
        if self.recorder is not None:
            await self.recorder.sync()
            if self.owns_store:
                await self.recorder.store.aclose()
            self.recorder = None


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
        tool = _builtin(entry) if isinstance(entry, str) else entry
        if tool.name in removed:
            continue
        if tool.name in tools:
            raise ConfigurationError(
                f"two tools are named {tool.name!r}; tool names must be unique — rename one"
            )
        tools[tool.name] = tool
    return tools


def _builtin(name: str) -> Tool:
    # Imported on demand: sessions made only of @tool functions never load the built-ins.
    from loopwright.tools.builtins import builtin_tool

    return builtin_tool(name)


def build_system_prompt(options: Options, cwd: Path) -> str:
    base = options.system_prompt
    prompt = DEFAULT_SYSTEM_PROMPT.format(cwd=cwd) if base is None else base
    if options.append_system_prompt:
        prompt = f"{prompt}\n\n{options.append_system_prompt}"
    return prompt


def create_runtime(options: Options, *, parent_tool_use_id: str | None = None) -> Runtime:
    """The session's pieces, not yet connected to a transcript (see :func:`open_runtime`)."""
    cwd = Path(options.cwd or os.getcwd()).resolve()
    if not cwd.is_dir():
        raise ConfigurationError(f"cwd {cwd} is not a directory; pass an existing directory")
    model = with_retries(resolve_model(options.model), options)
    window = options.context_window or context_window(model.name)
    return Runtime(
        options=options,
        model=model,
        tools=resolve_tools(options.tools, options.disallowed_tools),
        state=SessionState(cwd=cwd),
        session_id=options.session_id or new_uuid(),
        system_prompt=build_system_prompt(options, cwd),
        parent_tool_use_id=parent_tool_use_id,
        meter=ContextMeter(window),
        compaction=CompactionSettings(threshold=options.compaction_threshold),
    )


async def open_runtime(options: Options) -> Runtime:
    """A runtime connected to its session: new, resumed, continued or forked."""
    rt = create_runtime(options)
    wants_history = options.resume is not None or options.continue_conversation
    if not options.persist_session and not wants_history:
        return rt
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
    rt.recorder = opened.recorder if options.persist_session else None
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
    return rt


def init_data(rt: Runtime) -> dict[str, Any]:
    """The payload of the ``init`` system message."""
    return {
        "session_id": rt.session_id,
        "cwd": str(rt.state.cwd),
        "model": rt.model.name,
        "tools": list(rt.tools),
        "mcp_servers": [],
        "permission_mode": "bypassPermissions" if isinstance(rt.gate, OpenGate) else "default",
        "agents": [],
        "skills": [],
        "version": VERSION,
    }
