"""Tools that are part of the agent itself rather than actions on the world.

A handoff moves the conversation to another agent the program defined; like the OpenAI
Agents SDK, loopwright does not put that behind an allow rule. The permission gate
approves such a tool unless a deny or ask rule (or a hook) names it, in every mode.
"""

from __future__ import annotations

from loopwright.tools.base import ToolBase


class AgentAction(ToolBase):
    """Marker base for tools the gate approves unless a rule or hook says otherwise."""

    __slots__ = ()


def is_agent_action(tool: object) -> bool:
    return isinstance(tool, AgentAction)
