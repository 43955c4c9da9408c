"""MCP: servers over stdio, SSE and streamable HTTP (official ``mcp`` package) and in-process.

Importing this package does not import ``mcp``; that happens only when an external server
is started, so sessions without MCP servers work without the optional dependency.
"""

from loopwright.mcp.adapters import McpTool, SdkTool, convert_call_result, mcp_tool_name
from loopwright.mcp.client import McpManager, McpServerStatus
from loopwright.mcp.config import (
    HttpServerConfig,
    InvalidServerConfig,
    McpServerConfig,
    SseServerConfig,
    StdioServerConfig,
    expand_env,
    load_mcp_json,
    parse_server_config,
    parse_server_configs,
)
from loopwright.mcp.errors import LoginRequired, McpRequestError
from loopwright.mcp.features import McpPrompt, McpPromptResult, McpResource, ResourceContent
from loopwright.mcp.host import ElicitationHandler, ElicitationRequest, ElicitationResponse
from loopwright.mcp.sdk_server import SdkServerConfig, create_sdk_mcp_server

__all__ = [
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationResponse",
    "HttpServerConfig",
    "InvalidServerConfig",
    "LoginRequired",
    "McpManager",
    "McpPrompt",
    "McpPromptResult",
    "McpRequestError",
    "McpResource",
    "McpServerConfig",
    "McpServerStatus",
    "McpTool",
    "ResourceContent",
    "SdkServerConfig",
    "SdkTool",
    "SseServerConfig",
    "StdioServerConfig",
    "convert_call_result",
    "create_sdk_mcp_server",
    "expand_env",
    "load_mcp_json",
    "mcp_tool_name",
    "parse_server_config",
    "parse_server_configs",
]
