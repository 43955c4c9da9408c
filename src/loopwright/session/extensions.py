"""Session extensions assembled from Options: MCP servers (with ToolSearch deferral),
skills, subagents for the Agent tool, and the structured-output final-answer tool.

Each adds tools to the runtime and, where the model needs to know about it, a block to
the system prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopwright.options import AgentDefinition
from loopwright.session.runtime import Runtime
from loopwright.subagents.files import load_agent_files
from loopwright.subagents.tool import AGENT_TOOL_NAME, make_agent_tool
from loopwright.tools.base import Tool
from loopwright.tools.skill import discover_skills, make_skill_tool, select_skills, skills_listing

MCP_RESOURCE = "mcp"


async def add_mcp_servers(rt: Runtime, configs: dict[str, Any]) -> None:
    """Start the servers (failures are reported in ``init``, never raised) and add their
    tools, deferred behind ToolSearch when their definitions would crowd the context."""
    if not configs:
        return
    # MCP, ToolSearch and structured output load only for sessions that use them.
    from loopwright.mcp import McpManager
    from loopwright.tools.tool_search import DeferredToolRegistry

    options = rt.options
    manager = McpManager(
        connect_timeout=options.mcp_connect_timeout, call_timeout=options.tool_timeout_seconds
    )
    rt.state.resources[MCP_RESOURCE] = manager  # closed with the session
    await manager.start(configs)
    rt.mcp_status = manager.status_dicts()
    removed = {name for name in options.disallowed_tools if "(" not in name}
    tools = [t for t in manager.tools() if t.name not in removed and t.name not in rt.tools]
    instructions = manager.instructions()
    if instructions:
        blocks = [f"## {server}\n{text}" for server, text in instructions.items()]
        rt.system_prompt += "\n\n# MCP server instructions\n" + "\n\n".join(blocks)
    if _defer(tools, rt, options.tool_search):
        registry = DeferredToolRegistry(tools)
        rt.deferred = registry
        search = registry.tool()
        rt.tools[search.name] = search
        rt.system_prompt += "\n\n" + registry.deferred_listing()
        return
    for tool in tools:
        rt.tools[tool.name] = tool


def _defer(tools: list[Tool], rt: Runtime, setting: bool | float) -> bool:
    if not tools or setting is False:
        return False
    if setting is True:
        return True
    from loopwright.tools.tool_search import should_defer

    return should_defer(tools, rt.window, float(setting))


def add_skills(rt: Runtime, directories: list[Path], wanted: bool) -> None:
    catalog = discover_skills(directories)
    chosen = select_skills(catalog.skills, rt.options.skills)
    rt.skill_names = [skill.name for skill in chosen]
    rt.notices.extend(catalog.problems)
    if not chosen or not wanted:
        return
    tool = make_skill_tool(chosen)
    rt.tools[tool.name] = tool
    listing = skills_listing(chosen)
    if listing:
        rt.system_prompt += "\n\n" + listing


def add_agents(rt: Runtime, directories: list[Path], wanted: bool) -> None:
    loaded = load_agent_files(directories)
    rt.notices.extend(loaded.problems)
    agents: dict[str, AgentDefinition] = {**loaded.agents, **(rt.options.agents or {})}
    if not wanted:
        return
    tool = make_agent_tool(agents)
    rt.agent_names = list(tool.agents)
    rt.tools[AGENT_TOOL_NAME] = tool


def add_structured_output(rt: Runtime) -> None:
    if rt.options.output_format is None:
        return
    from loopwright.tools.structured_output import StructuredOutputTool, normalise_output_format

    fmt = normalise_output_format(rt.options.output_format)
    if fmt is None:
        return
    rt.output_format = fmt
    tool = StructuredOutputTool(fmt)
    rt.tools[tool.name] = tool
