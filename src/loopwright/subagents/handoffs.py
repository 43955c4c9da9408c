"""Handoffs: an agent hands the conversation to another agent.

Unlike a subagent (which works on a task and returns its report to the caller), a handoff
changes who is talking: the target's instructions, tools, model and settings replace the
current ones, and the conversation goes on with the same history. The model triggers one
by calling the handoff's tool (``transfer_to_<agent>``); ``on_handoff`` runs then, the
tool's result asks the loop to switch (a ``SwitchAgent`` request), and the loop switches
agents once the tool batch is done, optionally passing the history through
``input_filter``. The switch shows as ``SystemMessage(subtype="handoff")`` in the stream
and the transcript.

    billing = HandoffAgent(name="Billing", instructions="You handle invoices.", tools=[refund])
    options = Options(tools=[lookup, handoff(billing)])
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.guardrails import Guardrail
from loopwright.messages import ConversationMessage
from loopwright.models.base import Effort, Model
from loopwright.tools.agent_action import AgentAction
from loopwright.tools.base import Tool, ToolContext, ToolResult
from loopwright.tools.results import SwitchAgent


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffAgent:
    """The agent a conversation is handed to. ``None`` keeps the current setting; ``tools``
    and ``guardrails`` replace the current ones when given."""

    name: str
    instructions: str | None = None
    tools: Sequence[str | Tool] | None = None
    model: str | Model | None = None
    max_tokens: int | None = None
    effort: Effort | None = None
    guardrails: Sequence[Guardrail] | None = None
    description: str | None = None


AgentSource = HandoffAgent | Callable[[], "HandoffAgent | Awaitable[HandoffAgent]"]
HistoryFilter = Callable[
    [list[ConversationMessage]],
    "list[ConversationMessage] | Awaitable[list[ConversationMessage]]",
]


@dataclass(frozen=True, slots=True)
class PendingHandoff:
    """The switch a handoff tool asks for (the ``Handover`` of its SwitchAgent request)."""

    handoff: Handoff
    agent: HandoffAgent
    tool_use_id: str

    @property
    def agent_name(self) -> str:
        return self.agent.name

    @property
    def tool_name(self) -> str:
        return self.handoff.name


@dataclass(frozen=True, slots=True, kw_only=True)
class Handoff(AgentAction):
    """A tool that hands the conversation to ``agent`` (made by :func:`handoff`).

    ``agent`` may be a callable returning the agent, for agents that refer to each other.
    ``on_handoff(input)`` runs when the model calls the tool; ``input_schema`` describes the
    input the model must give (none by default).
    """

    agent: AgentSource
    name: str
    description: str
    input_schema: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}, "additionalProperties": False}
    )
    on_handoff: Callable[[dict[str, Any]], Any] | None = None
    input_filter: HistoryFilter | None = None
    read_only: bool = False  # handing over changes the session: never in a parallel batch

    async def target(self) -> HandoffAgent:
        source = self.agent
        if isinstance(source, HandoffAgent):
            return source
        produced = source()
        return await produced if inspect.isawaitable(produced) else produced

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        taken = next((r for r in ctx.earlier_requests if isinstance(r, SwitchAgent)), None)
        if taken is not None:
            return ToolResult.error(
                f"Not run: the conversation is already being handed to {taken.to.agent_name!r}; "
                "only one handoff per turn takes effect"
            )
        agent = await self.target()
        if self.on_handoff is not None:
            produced = self.on_handoff(input)
            if inspect.isawaitable(produced):
                await produced
        switch = SwitchAgent(PendingHandoff(self, agent, ctx.tool_use_id))
        return ToolResult(json.dumps({"assistant": agent.name}), request=switch)

    async def filter_history(self, history: list[ConversationMessage]) -> list[ConversationMessage]:
        if self.input_filter is None:
            return history
        produced = self.input_filter(list(history))
        return list(await produced if inspect.isawaitable(produced) else produced)


def handoff(
    agent: AgentSource,
    *,
    tool_name: str | None = None,
    tool_description: str | None = None,
    on_handoff: Callable[[dict[str, Any]], Any] | None = None,
    input_schema: dict[str, Any] | None = None,
    input_filter: HistoryFilter | None = None,
    agent_name: str | None = None,
) -> Handoff:
    """A handoff tool for ``agent``. Its name defaults to ``transfer_to_<agent name>``; give
    ``agent_name`` when ``agent`` is a callable (the name is needed before it is called)."""
    name = agent.name if isinstance(agent, HandoffAgent) else agent_name
    if name is None and tool_name is None:
        raise ValueError("handoff(callable) needs agent_name= or tool_name= to name its tool")
    shown = name or str(tool_name)
    described = agent.description if isinstance(agent, HandoffAgent) else None
    extra: dict[str, Any] = {} if input_schema is None else {"input_schema": input_schema}
    return Handoff(
        agent=agent,
        name=tool_name or default_tool_name(shown),
        description=tool_description
        or f"Handoff to the {shown} agent to handle the request. {described or ''}".strip(),
        on_handoff=on_handoff,
        input_filter=input_filter,
        **extra,
    )


def default_tool_name(agent_name: str) -> str:
    slug = re.sub(r"[^a-zA-Z0-9_]", "_", agent_name.strip().lower().replace(" ", "_"))
    return f"transfer_to_{slug or 'agent'}"
