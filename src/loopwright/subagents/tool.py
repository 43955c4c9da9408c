"""The Agent tool: hands a task to a subagent with a fresh context and its own tools.

The tool only validates the request and lists the agents to the model; running the
subagent is the loop's job, offered to tools as ``ctx.services.run_subagent`` (a
``tools.context.SubagentRunner``):

    async def run_subagent(name: str, definition: object, prompt: str,
                           ctx: ToolContext) -> ToolResult  # definition: AgentDefinition

It runs a fresh loop (tools narrowed with :func:`narrow_tools`), streams the subagent's
messages tagged with ``parent_tool_use_id=ctx.tool_use_id``, and returns only the final
text. Keeping the loop out of this module keeps the layering one-way (tools never import
the loop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.options import AgentDefinition
from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.types import PermissionMode

AGENT_TOOL_NAME = "Agent"
GENERAL_PURPOSE_NAME = "general-purpose"

GENERAL_PURPOSE = AgentDefinition(
    description=(
        "General-purpose agent for researching complex questions, searching code and "
        "carrying out multi-step tasks. Use it when a search or task may take several "
        "attempts and its intermediate output would clutter your context."
    ),
    prompt=(
        "You are a subagent working on one delegated task. Use the tools available to "
        "complete it thoroughly, then reply with a concise final report: what you found or "
        "did, with exact file paths and any facts the caller needs. Your final message is "
        "the only thing the caller will see."
    ),
)


def narrow_tools(parent_tool_names: Sequence[str], definition: AgentDefinition) -> list[str]:
    """The subagent's tool names: never more than the parent's, and never Agent.

    ``definition.tools`` entries may be exact names, permission-style specifiers
    (``Bash(git *)`` grants the Bash tool; the specifier is a rule, not a tool), MCP server
    prefixes (``mcp__github`` or ``mcp__github__*``) or a trailing ``*`` wildcard. Names the
    parent does not have are dropped. The parent's order is kept.
    """
    available = [name for name in parent_tool_names if name != AGENT_TOOL_NAME]
    if definition.tools is None:
        return available
    patterns = [entry.split("(", 1)[0].strip() for entry in definition.tools]
    return [name for name in available if any(_grants(p, name) for p in patterns)]


# Least to most permissive: a subagent may ask for a stricter mode, never a looser one.
_MODE_ORDER: tuple[PermissionMode, ...] = (
    "plan",
    "dontAsk",
    "default",
    "acceptEdits",
    "bypassPermissions",
)


def narrower_mode(parent: PermissionMode, requested: PermissionMode | None) -> PermissionMode:
    if requested is None or requested not in _MODE_ORDER or parent not in _MODE_ORDER:
        return parent
    return parent if _MODE_ORDER.index(parent) <= _MODE_ORDER.index(requested) else requested


def _grants(pattern: str, name: str) -> bool:
    if pattern == name:
        return True
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    # "mcp__server" (no tool part) grants every tool of that server.
    if pattern.startswith("mcp__") and "__" not in pattern[len("mcp__") :]:
        return name.startswith(pattern + "__")
    return False


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: it holds a dict
class AgentTool(ToolBase):
    """The ``Agent`` tool. Build it with :func:`make_agent_tool`."""

    agents: Mapping[str, AgentDefinition] = field(default_factory=dict[str, AgentDefinition])
    name: str = AGENT_TOOL_NAME
    # Marked read-only so several subagents can run side by side (the executor runs
    # consecutive read-only calls concurrently); each subagent's own tool calls still go
    # through its own permission checks.
    read_only: bool = True
    # A subagent is bounded by its own turns, budget and tool timeouts; the executor's
    # per-call timeout (10 minutes by default) would cut long delegated tasks short.
    timeout_seconds: float | None = 24 * 3600.0

    @property
    def description(self) -> str:
        listing = "\n".join(f"- {name}: {d.description}" for name, d in self.agents.items())
        return (
            "Launch a subagent to handle a task on its own, with a fresh context and its own "
            "tools. Only its final report comes back to you, so give it everything it needs "
            "in the prompt (paths, errors, decisions). Several independent subagents can run "
            "at once: call the tool several times in one response.\n\n"
            f"Available agent types (subagent_type):\n{listing}"
        )

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "description": {
                    "type": "string",
                    "description": "A short (3-5 word) summary of the task",
                },
                "prompt": {
                    "type": "string",
                    "description": "The complete task for the subagent",
                },
                "subagent_type": {
                    "type": "string",
                    **({"enum": list(self.agents)} if self.agents else {}),
                    "description": "Which agent to run",
                },
            },
            "required": ["description", "prompt", "subagent_type"],
            "additionalProperties": False,
        }

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        prompt = input.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return ToolResult.error("'prompt' is required: write the full task for the subagent")
        requested = input.get("subagent_type") or (
            GENERAL_PURPOSE_NAME if GENERAL_PURPOSE_NAME in self.agents else None
        )
        if not isinstance(requested, str) or requested not in self.agents:
            valid = ", ".join(self.agents) or "(none are configured)"
            return ToolResult.error(f"unknown subagent_type {requested!r}; use one of: {valid}")
        run = ctx.services.run_subagent
        if run is None:
            return ToolResult.error(
                "subagents cannot run in this session (no run_subagent service); "
                "do the task yourself"
            )
        try:
            return await run(requested, self.agents[requested], prompt, ctx)
        except Exception as exc:
            return ToolResult.error(
                f"subagent {requested!r} failed: {type(exc).__name__}: {exc}; call it again "
                "later, or do the task yourself"
            )


def make_agent_tool(
    agents: Mapping[str, AgentDefinition], *, include_general_purpose: bool = True
) -> AgentTool:
    """The Agent tool for these agents (plus the built-in general-purpose one unless defined)."""
    available = dict(agents)
    if include_general_purpose:
        available.setdefault(GENERAL_PURPOSE_NAME, GENERAL_PURPOSE)
    return AgentTool(available)
