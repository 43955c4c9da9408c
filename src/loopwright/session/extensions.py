"""Session extensions assembled from Options: MCP servers (with ToolSearch deferral),
skills, subagents for the Agent tool, and the structured-output final-answer tool.

Each adds tools to the Agent being drafted and, where the model needs to know about it, a
block to its system prompt. The draft becomes a frozen Agent once assembly is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loopwright.options import AgentDefinition, Options
from loopwright.subagents.files import load_agent_files
from loopwright.subagents.tool import AGENT_TOOL_NAME, make_agent_tool
from loopwright.tools.base import SessionState, Tool
from loopwright.tools.skill import discover_skills, make_skill_tool, select_skills, skills_listing

if TYPE_CHECKING:  # import cost only: MCP, structured output, tool search load when used
    from loopwright.mcp.config import McpServerConfig
    from loopwright.tools.structured_output import OutputFormat
    from loopwright.tools.tool_search import DeferredToolRegistry

MCP_RESOURCE = "mcp"


@dataclass(slots=True)
class AgentDraft:
    """The parts of an Agent that extensions still add to while a session is assembled."""

    tools: dict[str, Tool]
    system_prompt: str
    window: int
    deferred: DeferredToolRegistry | None = None
    output_format: OutputFormat | None = None
    mcp_status: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    agent_names: list[str] = field(default_factory=list[str])
    skill_names: list[str] = field(default_factory=list[str])
    # Problems found on the way (unreadable skill or agent files …), shown at start.
    notices: list[str] = field(default_factory=list[str])

    def add_prompt(self, text: str) -> None:
        self.system_prompt += "\n\n" + text


async def add_mcp_servers(
    draft: AgentDraft,
    options: Options,
    state: SessionState,
    configs: Mapping[str, McpServerConfig | Mapping[str, Any]],
) -> None:
    """Start the servers (failures are reported in ``init``, never raised) and add their
    tools, deferred behind ToolSearch when their definitions would crowd the context."""
    if not configs:
        return
    # MCP and ToolSearch load only for sessions that use them.
    from loopwright.mcp.session_setup import new_manager, resource_tools

    manager = new_manager(
        connect_timeout=options.mcp_connect_timeout,
        call_timeout=options.tool_timeout_seconds,
        on_elicitation=options.on_elicitation,
        sampling=options.mcp_sampling,
        oauth=options.mcp_oauth,
    )
    state.resources[MCP_RESOURCE] = manager  # closed with the session
    await manager.start(configs)
    draft.mcp_status = manager.status_dicts()
    removed = {name for name in options.disallowed_tools if "(" not in name}
    for tool in resource_tools(manager, removed):
        draft.tools.setdefault(tool.name, tool)
    tools = [t for t in manager.tools() if t.name not in removed and t.name not in draft.tools]
    instructions = manager.instructions()
    if instructions:
        blocks = [f"## {server}\n{text}" for server, text in instructions.items()]
        draft.add_prompt("# MCP server instructions\n" + "\n\n".join(blocks))
    if _defer(tools, draft.window, options.tool_search):
        from loopwright.tools.tool_search import DeferredToolRegistry  # start-up: see above

        registry = DeferredToolRegistry(tools)
        draft.deferred = registry
        search = registry.tool()
        draft.tools[search.name] = search
        draft.add_prompt(registry.deferred_listing())
        return
    for tool in tools:
        draft.tools[tool.name] = tool


def _defer(tools: list[Tool], window: int, setting: bool | float) -> bool:
    if not tools or setting is False:
        return False
    if setting is True:
        return True
    from loopwright.tools.tool_search import should_defer

    return should_defer(tools, window, float(setting))


def add_skills(draft: AgentDraft, options: Options, directories: list[Path], wanted: bool) -> None:
    catalog = discover_skills(directories)
    chosen = select_skills(catalog.skills, options.skills)
    draft.skill_names = [skill.name for skill in chosen]
    draft.notices.extend(catalog.problems)
    if not chosen or not wanted:
        return
    tool = make_skill_tool(chosen)
    draft.tools[tool.name] = tool
    listing = skills_listing(chosen)
    if listing:
        draft.add_prompt(listing)


def add_agents(
    draft: AgentDraft,
    options: Options,
    directories: list[Path],
    wanted: bool,
    checkout: Path | None = None,
) -> None:
    loaded = load_agent_files(directories, checkout=checkout)
    draft.notices.extend(loaded.problems)
    agents: dict[str, AgentDefinition] = {**loaded.agents, **(options.agents or {})}
    if not wanted:
        return
    tool = make_agent_tool(agents)
    draft.agent_names = list(tool.agents)
    draft.tools[AGENT_TOOL_NAME] = tool


def add_structured_output(draft: AgentDraft, options: Options) -> None:
    if options.output_format is None:
        return
    from loopwright.tools.structured_output import StructuredOutputTool, normalise_output_format

    fmt = normalise_output_format(options.output_format)
    if fmt is None:
        return
    draft.output_format = fmt
    tool = StructuredOutputTool(fmt)
    draft.tools[tool.name] = tool
