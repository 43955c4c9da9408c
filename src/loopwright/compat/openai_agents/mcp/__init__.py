"""``agents.mcp``: MCP servers on loopwright's MCP client."""

from loopwright.compat.openai_agents._impl.mcp import (
    MCPServer,
    MCPServerManager,
    MCPServerSse,
    MCPServerStdio,
    MCPServerStreamableHttp,
    MCPUtil,
    ToolFilterContext,
    ToolFilterStatic,
    create_static_tool_filter,
)

__all__ = [
    "MCPServer",
    "MCPServerManager",
    "MCPServerSse",
    "MCPServerStdio",
    "MCPServerStreamableHttp",
    "MCPUtil",
    "ToolFilterContext",
    "ToolFilterStatic",
    "create_static_tool_filter",
]
