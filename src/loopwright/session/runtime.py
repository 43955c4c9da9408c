"""A session's resolved pieces: model, tools, system prompt, state and running totals.

Options say what the user wants; a Runtime is what the loop works with (built by
:mod:`loopwright.session.assemble`). It lives as long as the session: a ``Client`` keeps one
across prompts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.context.compaction import CompactionBreaker, CompactionSettings
from loopwright.context.tokens import ContextMeter
from loopwright.cost import add_costs, cost_of
from loopwright.errors import ConfigurationError
from loopwright.hooks.runner import HookEvent, HookOutcome, HookRunner, hook_input
from loopwright.messages import ConversationMessage, Message, SystemMessage, Usage
from loopwright.models.base import (
    Model,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    ThinkingConfig,
    ToolSpec,
)
from loopwright.options import Options
from loopwright.sessions import SessionRecorder
from loopwright.sessions.base import SessionStore, WriterLock
from loopwright.sessions.transcript import StateSnapshot
from loopwright.tools.base import OpenGate, SessionState, Tool, ToolGate
from loopwright.tools.structured_output import OutputFormat
from loopwright.tools.tool_search import DeferredToolRegistry

VERSION = "0.1.0"


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
        self.cost_usd = add_costs(self.cost_usd, cost)
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
        entry["cost_usd"] = add_costs(entry["cost_usd"], cost)


@dataclass(slots=True)
class Runtime:
    options: Options
    model: Model
    tools: dict[str, Tool]
    state: SessionState
    session_id: str
    system_prompt: str
    gate: ToolGate = field(default_factory=OpenGate)
    hooks: HookRunner | None = None
    # Builds a gate with the same rules for a subagent: (mode, extra hook fields) -> gate.
    gate_factory: Callable[[Any, dict[str, Any]], ToolGate] | None = None
    # Extra fields of every hook input (agent_id / agent_type inside a subagent).
    hook_fields: dict[str, Any] = field(default_factory=dict[str, Any])
    started: bool = False  # SessionStart has fired
    closed: bool = False
    history: list[ConversationMessage] = field(default_factory=list[ConversationMessage])
    totals: Totals = field(default_factory=Totals)
    # What the run in progress has spent (its ResultMessage reports it); subagents add theirs.
    run_totals: Totals = field(default_factory=Totals)
    # Permission denials of the run in progress; subagents add theirs.
    run_denials: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    # Providers replaced by set_model(); closed with the session (a request may still use one).
    retired_models: list[Model] = field(default_factory=list[Model])
    # Where the transcript lives, for hooks (JSONL stores only).
    transcript_path: str | None = None
    parent: Runtime | None = None
    base_working_dirs: tuple[Path, ...] = ()
    # output_format: the run must end with a valid call of the StructuredOutput tool.
    output_format: OutputFormat | None = None
    # MCP tools behind ToolSearch; loaded ones join the tools the model sees.
    deferred: DeferredToolRegistry | None = None
    mcp_status: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    agent_names: list[str] = field(default_factory=list[str])
    skill_names: list[str] = field(default_factory=list[str])
    # Problems found while assembling (unreadable skill or agent files …), shown at start.
    notices: list[str] = field(default_factory=list[str])
    parent_tool_use_id: str | None = None
    # Set by interrupt(); the loop checks it and cancels whatever is running.
    interrupt_event: asyncio.Event = field(default_factory=asyncio.Event)
    current_work: asyncio.Task[Any] | None = None
    services: dict[str, Any] = field(default_factory=dict[str, Any])
    created_at: float = field(default_factory=time.monotonic)
    # Sessions: where messages are recorded (None when not persisted, and for subagents).
    recorder: SessionRecorder | None = None
    # Held while this runtime is the session's one writer; released by aclose() or, once
    # the last entry is written, by stop_writing().
    session_lock: WriterLock | None = None
    # The store of a session whose writing stopped early, still to be closed by aclose().
    finished_store: SessionStore | None = None
    last_recorded_uuid: str | None = None
    # OpenTelemetry context of the run in progress (model and tool spans hang under it).
    trace_context: Any = None
    owns_store: bool = False
    num_turns_total: int = 0
    # Messages to show at the start of the next run (resume warnings, notices).
    pending_notices: list[Message] = field(default_factory=list[Message])
    # Context accounting and compaction.
    meter: ContextMeter = field(default_factory=lambda: ContextMeter(128_000))
    breaker: CompactionBreaker = field(default_factory=CompactionBreaker)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)

    def active_tools(self) -> dict[str, Tool]:
        """The tools callable now: the session's, plus deferred ones the model has loaded."""
        if self.deferred is None:
            return self.tools
        return {**self.tools, **{t.name: t for t in self.deferred.loaded()}}

    @property
    def tool_specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(t.name, t.description, t.input_schema) for t in self.active_tools().values()
        ]

    @property
    def working_dirs(self) -> tuple[Path, ...]:
        """Where file tools may work without asking: the starting cwd and added dirs (not
        wherever Bash has ``cd``-ed to since)."""
        return self.base_working_dirs or (self.state.cwd,)

    async def fire_hook(
        self, event: HookEvent, *, match_value: str | None = None, **fields: Any
    ) -> tuple[HookOutcome | None, list[Message]]:
        """Run the hooks of ``event``; returns their merged outcome and what to show."""
        if self.hooks is None or not self.hooks.has(event):
            return None, []
        common: dict[str, Any] = {"permission_mode": self.permission_mode}
        if self.transcript_path is not None:
            common["transcript_path"] = self.transcript_path
        payload = hook_input(
            event,
            session_id=self.session_id,
            cwd=str(self.state.cwd),
            **{**common, **self.hook_fields, **fields},
        )
        outcome = await self.hooks.run(event, payload, match_value=match_value)
        return outcome, self.hook_messages(event, outcome)

    def hook_messages(self, event: str, outcome: HookOutcome) -> list[Message]:
        messages: list[Message] = [
            SystemMessage("informational", {"message": text, "hook_event": event})
            for text in outcome.system_messages
        ]
        messages += [
            SystemMessage("hook_error", {"hook_event": event, "error": error})
            for error in outcome.errors
        ]
        if self.options.include_hook_events and outcome.hooks_run:
            messages.append(
                SystemMessage(
                    "hook_response",
                    {
                        "hook_event": event,
                        "hooks_run": outcome.hooks_run,
                        "continue": outcome.continue_,
                        "decision": outcome.decision or outcome.permission_decision,
                        "reason": outcome.reason,
                    },
                )
            )
        return messages

    def gate_messages(self) -> list[Message]:
        """Notices the permission gate collected from tool hooks during the last batch."""
        drain = getattr(self.gate, "drain_notices", None)
        if drain is None:
            return []
        messages: list[Message] = []
        for notice in drain():
            if notice.kind == "hook_error":
                messages.append(
                    SystemMessage(
                        "hook_error", {"hook_event": notice.event, "error": notice.message}
                    )
                )
            else:
                messages.append(
                    SystemMessage(
                        "informational", {"message": notice.message, "hook_event": notice.event}
                    )
                )
        return messages

    @property
    def permission_mode(self) -> str:
        mode = getattr(self.gate, "mode", None)
        if isinstance(mode, str):
            return mode
        return "bypassPermissions" if isinstance(self.gate, OpenGate) else "default"

    def start_run(self) -> None:
        """Reset what one run reports (its ResultMessage counts only itself)."""
        self.run_totals = Totals()
        self.run_denials = []
        if hasattr(self.gate, "stop_reason"):
            self.gate.stop_reason = None  # type: ignore[attr-defined]

    def add_denials(self, denials: list[dict[str, Any]]) -> None:
        runtime: Runtime | None = self
        while runtime is not None:
            runtime.run_denials.extend(denials)
            runtime = runtime.parent

    def add_api_seconds(self, seconds: float) -> None:
        runtime: Runtime | None = self
        while runtime is not None:
            runtime.totals.api_seconds += seconds
            runtime.run_totals.api_seconds += seconds
            runtime = runtime.parent

    def add_usage(self, model: str, usage: Usage) -> None:
        """Count a model call here and in every ancestor: a subagent's spend is its parent's."""
        runtime: Runtime | None = self
        while runtime is not None:
            runtime.totals.add(model, usage)
            runtime.run_totals.add(model, usage)
            runtime = runtime.parent

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
        return thinking_config(self.options.thinking)

    async def aclose(self, reason: str = "other") -> None:
        """Release what tools left running (background shells, connections)."""
        if self.parent is None and not self.closed:
            self.closed = True
            await self.fire_hook("SessionEnd", match_value=reason, reason=reason)
        for resource in list(self.state.resources.values()):
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                await closer()
        if self.parent is None:
            for model in (self.model, *self.retired_models):
                closer = getattr(model, "aclose", None)
                if closer is not None:
                    await closer()  # HTTP clients of providers belong to this event loop
        await self.stop_writing()
        store, self.finished_store = self.finished_store, None
        if store is not None and self.owns_store:
            await store.aclose()

    async def stop_writing(self) -> None:
        """Nothing more goes into the transcript: make it durable and release the session's
        writer lock, so another run may resume it at once."""
        if self.recorder is not None:
            await self.recorder.sync()
            self.finished_store = self.recorder.store
            self.recorder = None
        if self.session_lock is not None:
            self.session_lock.release()
            self.session_lock = None


def thinking_config(raw: ThinkingConfig | dict[str, Any] | None) -> ThinkingConfig | None:
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


class CountingModel:
    """The session's current model for tools' own calls, with their usage counted."""

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    @property
    def name(self) -> str:
        return self._rt.model.name

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        async for event in self._rt.model.stream(request):
            if isinstance(event, ModelResponse):
                self._rt.add_usage(event.model, event.usage)
            yield event


def init_data(rt: Runtime) -> dict[str, Any]:
    """The payload of the ``init`` system message."""
    return {
        "session_id": rt.session_id,
        "cwd": str(rt.state.cwd),
        "model": rt.model.name,
        "tools": list(rt.tools),
        "mcp_servers": rt.mcp_status,
        "permission_mode": rt.permission_mode,
        "agents": rt.agent_names,
        "skills": rt.skill_names,
        "version": VERSION,
    }
