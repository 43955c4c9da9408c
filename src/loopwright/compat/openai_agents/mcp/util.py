"""``agents.mcp.util``."""

from loopwright.compat.openai_agents._impl.mcp import (
    MCPUtil,
    ToolFilterContext,
    ToolFilterStatic,
    create_static_tool_filter,
)

__all__ = ["MCPUtil", "ToolFilterContext", "ToolFilterStatic", "create_static_tool_filter"]
