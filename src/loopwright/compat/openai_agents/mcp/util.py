"""``agents.mcp.util``."""

from loopwright.compat._openai_mcp import (
    MCPUtil,
    ToolFilterContext,
    ToolFilterStatic,
    create_static_tool_filter,
)

__all__ = ["MCPUtil", "ToolFilterContext", "ToolFilterStatic", "create_static_tool_filter"]
