"""Session: an Agent, its Conversation and its Spend, plus what lives as long as they do.

The Agent is swapped whole (a handoff, ``Client.set_model``), never edited. What tools
share (the session's state, services such as the question callback or the sandbox) and
what the loop needs to stop a run (the interrupt) live here too. A ``Client`` keeps one
Session across prompts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loopwright.context.compaction import CompactionBreaker
from loopwright.context.tokens import ContextMeter
from loopwright.hooks.payloads import hook_messages, hook_payload
from loopwright.hooks.runner import HookEvent, HookOutcome
from loopwright.messages import Message
from loopwright.models.base import Model, ModelEvent, ModelRequest, ModelResponse, ModelWrapper
from loopwright.session.agent import Agent
from loopwright.session.conversation import Conversation
from loopwright.session.spend import Spend
from loopwright.tools.base import Closeable, SessionState, ToolServices
from loopwright.types import ApprovalDecision
from loopwright.version import VERSION

if TYPE_CHECKING:
    from loopwright.session.checkpoints import FileCheckpoints
    from loopwright.stores.approvals import PendingBatch
    from loopwright.stores.transcript import StateSnapshot


def meter_for(agent: Agent) -> ContextMeter:
    """The token meter of a session whose agent is ``agent``: sized by its model's window."""
    return ContextMeter(agent.window)


@dataclass(slots=True, kw_only=True)
class Session:
    agent: Agent
    session_id: str
    state: SessionState
    conversation: Conversation = field(default_factory=Conversation)
    spend: Spend = field(default_factory=Spend)
    # What tools may use (frozen; what exists only with the Session is added by replacing
    # the whole value: see ToolServices).
    services: ToolServices = field(default_factory=ToolServices)
    meter: ContextMeter = field(default_factory=lambda: ContextMeter(128_000))
    breaker: CompactionBreaker = field(default_factory=CompactionBreaker)
    parent: Session | None = None
    # With enable_file_checkpointing: what Write/Edit changed, per prompt, for rewind_files().
    checkpoints: FileCheckpoints | None = None
    # Messages to show at the start of the next run (resume warnings, assembly notices).
    pending_notices: list[Message] = field(default_factory=list[Message])
    # Models replaced by a handoff or set_model(): a request may still hold one, so they
    # are closed with the session.
    retired_models: list[Model] = field(default_factory=list[Model])
    started: bool = False  # SessionStart has fired
    closed: bool = False
    # Set by interrupt(); the loop checks it and cancels whatever is running.
    interrupt_event: asyncio.Event = field(default_factory=asyncio.Event)
    current_work: asyncio.Task[Any] | None = None
    # OpenTelemetry context of the run in progress (model and tool spans hang under it).
    trace_context: Any = None
    created_at: float = field(default_factory=time.monotonic)
    # Tool calls of the last assistant message that wait for a person's approval, and the
    # answers given for them (Options.approvals) that the next run applies.
    pending: PendingBatch | None = None
    approvals: dict[str, ApprovalDecision] = field(default_factory=dict[str, ApprovalDecision])

    def use_agent(self, agent: Agent) -> None:
        """From the next request on, this Agent talks (a handoff, a new model). Another
        model brings its own window, and the last provider count no longer applies."""
        if agent.model is not self.agent.model:
            self.retired_models.append(self.agent.model)
            self.meter = meter_for(agent)
        self.agent = agent

    def checkpoint(self, prompt_uuid: str) -> None:
        """A new prompt: the files tools change from now on are kept under its uuid."""
        if self.checkpoints is not None:
            self.checkpoints.begin(prompt_uuid)

    @property
    def interrupted(self) -> bool:
        return self.interrupt_event.is_set()

    def interrupt(self) -> None:
        self.interrupt_event.set()
        if self.current_work is not None and not self.current_work.done():
            self.current_work.cancel()

    def take_pending_notices(self) -> list[Message]:
        notices, self.pending_notices = self.pending_notices, []
        return notices

    async def fire_hook(
        self, event: HookEvent, *, match_value: str | None = None, **fields: Any
    ) -> tuple[HookOutcome | None, list[Message]]:
        """Run the hooks of ``event``; returns their merged outcome and what to show."""
        hooks = self.agent.hooks
        if hooks is None or not hooks.has(event):
            return None, []
        payload = hook_payload(
            event,
            session_id=self.session_id,
            cwd=str(self.state.cwd),
            permission_mode=self.agent.permission_mode,
            transcript_path=self.conversation.transcript_path,
            scope_fields=self.agent.hook_fields,
            **fields,
        )
        outcome = await hooks.run(event, payload, match_value=match_value)
        include = self.agent.options.include_hook_events
        messages: list[Message] = [*hook_messages(event, outcome, include_hook_events=include)]
        return outcome, messages

    def snapshot(self) -> StateSnapshot:
        # start-up: the transcript's reading side loads at the first snapshot, after a request
        from loopwright.stores.transcript import StateSnapshot

        totals = self.spend.total
        return StateSnapshot.capture(
            self.state,
            usage=totals.usage,
            total_cost_usd=totals.cost_usd,
            model_usage=totals.model_usage,
            num_turns=self.spend.turns,
        )

    async def aclose(self, reason: str = "other") -> None:
        """SessionEnd, then release what tools left running (background shells, MCP
        servers), the providers' HTTP clients and the transcript."""
        if self.parent is None and not self.closed:
            self.closed = True
            await self.fire_hook("SessionEnd", match_value=reason, reason=reason)
        await aclose_each(*self.state.resources.values())
        if self.parent is None:  # HTTP clients of providers belong to this event loop
            await aclose_each(self.agent.model, *self.retired_models)
        await self.conversation.aclose()

    async def stop_writing(self) -> None:
        await self.conversation.stop_writing()


async def aclose_each(*objects: object) -> None:
    """Close what is Closeable (tools' resources, providers); the rest has nothing to
    release."""
    for item in objects:
        if isinstance(item, Closeable):
            await item.aclose()


class CountingModel(ModelWrapper):
    """The session's current model for tools' own calls, with their usage counted."""

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def wrapped(self) -> Model:
        return self._session.agent.model  # whichever model talks now (handoffs, set_model)

    async def aclose(self) -> None:
        """Nothing: the session closes its own models when it ends."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        async for event in self._session.agent.model.stream(request):
            if isinstance(event, ModelResponse):
                self._session.spend.add_usage(event.model, event.usage)
            yield event


def init_data(session: Session) -> dict[str, Any]:
    """The payload of the ``init`` system message."""
    agent = session.agent
    return {
        "session_id": session.session_id,
        "cwd": str(session.state.cwd),
        "model": agent.model.name,
        "tools": list(agent.tools),
        "mcp_servers": [dict(status) for status in agent.mcp_status],
        "permission_mode": agent.permission_mode,
        "agents": list(agent.agent_names),
        "skills": list(agent.skill_names),
        "version": VERSION,
    }
