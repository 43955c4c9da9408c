"""The session's McpManager made from the Options' MCP fields: timeouts, the host that
answers servers' questions, OAuth for HTTP servers, and the resource tools.

Options sit above this package, so assembly passes the fields one by one.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from loopwright.mcp.client import McpManager
from loopwright.mcp.config import HttpServerConfig, SseServerConfig
from loopwright.mcp.connection import AuthFactory
from loopwright.mcp.host import ElicitationHandler, McpHost
from loopwright.tools.base import Tool


def new_manager(
    *,
    connect_timeout: float,
    call_timeout: float | None,
    on_elicitation: ElicitationHandler | None = None,
    sampling: bool = False,
    oauth: bool = True,
) -> McpManager:
    host = McpHost(on_elicitation=on_elicitation, allow_sampling=sampling)
    auth: AuthFactory | None = _session_auth if oauth else None
    return McpManager(
        connect_timeout=connect_timeout, call_timeout=call_timeout, host=host, auth=auth
    )


def resource_tools(manager: McpManager, removed: Collection[str]) -> list[Tool]:
    """ListMcpResources / ReadMcpResource, when some external server is configured."""
    from loopwright.mcp.resource_tools import ListMcpResourcesTool, ReadMcpResourceTool

    if not manager.external_names():
        return []
    tools: list[Tool] = [ListMcpResourcesTool(manager), ReadMcpResourceTool(manager)]
    return [t for t in tools if t.name not in removed]


def _session_auth(name: str, config: SseServerConfig | HttpServerConfig) -> Any:
    from loopwright.mcp.oauth import session_auth  # imports the mcp package: only when used

    return session_auth(name, config)
