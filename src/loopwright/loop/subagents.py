"""Running a subagent: a fresh loop with its own context and a narrower tool set.

The Agent tool hands the task here through the ``run_subagent`` service. The subagent
runs as a child session (:mod:`loopwright.session.child`): the parent's working directory
and transcript, its own Agent, a child Spend. Its messages stream out tagged with the
parent's tool_use id, and only its final text goes back as the tool result.
"""

from __future__ import annotations

import dataclasses

from loopwright.loop.run import agent_loop
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)
from loopwright.options import AgentDefinition
from loopwright.session.child import child_session
from loopwright.session.session import Session, aclose_each
from loopwright.tools.base import ToolContext, ToolResult


def install_subagents(session: Session) -> None:
    """Offer the Agent tool a way to run subagents of this session."""

    async def run_subagent(
        name: str, definition: object, prompt: str, ctx: ToolContext
    ) -> ToolResult:
        if not isinstance(definition, AgentDefinition):
            return ToolResult.error(f"subagent {name!r} has no AgentDefinition: {definition!r}")
        return await _run(session, name, definition, prompt, ctx)

    # Replaced whole, before the first call: every ToolContext sees one set of services.
    session.services = dataclasses.replace(session.services, run_subagent=run_subagent)


async def _run(
    parent: Session, name: str, definition: AgentDefinition, prompt: str, ctx: ToolContext
) -> ToolResult:
    child = child_session(parent, name, definition, ctx.tool_use_id)
    # SubagentStop fires from the subagent's own loop when it finishes (it may block).
    _, notices = await parent.fire_hook(
        "SubagentStart", match_value=name, agent_type=name, agent_id=ctx.tool_use_id
    )
    for notice in notices:
        if ctx.emit:
            await ctx.emit(notice)
    result: ResultMessage | None = None
    async for message in agent_loop(child, UserMessage(prompt, ctx.tool_use_id)):
        if isinstance(message, ResultMessage):
            result = message
        elif ctx.emit is None:
            continue
        elif isinstance(message, AssistantMessage | UserMessage | StreamEvent):
            await ctx.emit(message)
        elif isinstance(message, SystemMessage) and message.subtype != "init":
            # Retries, compactions and hook notices of the subagent, marked as its own.
            data = {**message.data, "parent_tool_use_id": ctx.tool_use_id}
            await ctx.emit(SystemMessage(message.subtype, data, message.uuid))
    if child.agent.model is not parent.agent.model:  # its own model: its HTTP client ends here
        await aclose_each(child.agent.model)
    if result is None:  # pragma: no cover - the loop always ends with a result
        return ToolResult.error(f"subagent {name!r} ended without a result")
    if result.is_error:
        partial = _last_text(child)
        detail = "; ".join(result.errors) or result.subtype
        return ToolResult.error(
            f"subagent {name!r} stopped early ({result.subtype}: {detail})."
            + (f" Its last message:\n{partial}" if partial else "")
        )
    return ToolResult(result.result or "(the subagent returned no text)")


def _last_text(child: Session) -> str:
    for message in reversed(child.conversation.messages):
        if isinstance(message, AssistantMessage) and message.text:
            return message.text
    return ""
