"""McpManager: every MCP server of a session, their statuses and their tools.

Lifecycle, as the loop uses it::

    manager = McpManager(connect_timeout=30, call_timeout=600)
    statuses = await manager.start(options.mcp_servers)   # connects all servers concurrently
    init_data["mcp_servers"] = [s.to_dict() for s in statuses]
    tools = manager.tools()                                # mcp__<server>__<tool> Tools
    ...
    await manager.aclose()                                 # ends every connection and process

A server that fails to start is reported ``failed`` with the reason and contributes no
tools; a server that dies mid-session turns its tools' calls into error results. Neither
raises into the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

from loopwright.errors import ConfigurationError
from loopwright.mcp.adapters import SdkTool, mcp_tool_name
from loopwright.mcp.config import InvalidServerConfig, McpServerConfig, parse_server_configs
from loopwright.mcp.connection import ServerConnection
from loopwright.mcp.sdk_server import SdkServerConfig
from loopwright.redact import redact_text
from loopwright.tools.base import Tool

DEFAULT_CONNECT_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class McpServerStatus:
    """One server's state, as reported in the ``init`` message."""

    name: str
    status: Literal["connected", "failed", "pending"]
    tools: int = 0
    error: str | None = None
    transport: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "status": self.status, "tools": self.tools}
        if self.error is not None:
            data["error"] = redact_text(self.error)
        return data


class McpManager:
    """Starts, reports on, routes calls to, and closes a session's MCP servers."""

    def __init__(
        self,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    ) -> None:
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self._connections: dict[str, ServerConnection] = {}
        self._sdk_servers: dict[str, SdkServerConfig] = {}
        self._invalid: dict[str, str] = {}
        self._order: list[str] = []

    async def start(
        self,
        configs: Mapping[str, Mapping[str, Any] | McpServerConfig],
        *,
        wait: bool = True,
    ) -> list[McpServerStatus]:
        """Start every server concurrently; with ``wait``, return once each connected or failed.

        With ``wait=False`` external servers report ``pending`` until they finish connecting
        (their tools appear in :meth:`tools` from then on).
        """
        parsed = parse_server_configs(configs)
        started: list[ServerConnection] = []
        for name, config in parsed.items():
            if name in self._order:
                raise ConfigurationError(
                    f"MCP server {name!r} is configured twice; give each server a unique name"
                )
            self._order.append(name)
            if isinstance(config, SdkServerConfig):
                self._sdk_servers[name] = config
            elif isinstance(config, InvalidServerConfig):
                self._invalid[name] = config.error
            else:
                connection = ServerConnection(name, config, self.connect_timeout, self.call_timeout)
                self._connections[name] = connection
                connection.start()
                started.append(connection)
        if wait and started:
            await asyncio.gather(*(c.wait_ready() for c in started))
        return self.statuses()

    async def wait_ready(self) -> list[McpServerStatus]:
        """Wait until no server is pending (each is bounded by the connect timeout)."""
        await asyncio.gather(*(c.wait_ready() for c in self._connections.values()))
        return self.statuses()

    def statuses(self) -> list[McpServerStatus]:
        """The current state of every configured server, in configuration order."""
        return [self._status(name) for name in self._order]

    def status_dicts(self) -> list[dict[str, Any]]:
        """:meth:`statuses` as plain dicts, ready for ``SystemMessage("init").data``."""
        return [status.to_dict() for status in self.statuses()]

    def tools(self) -> list[Tool]:
        """The tools of every connected server, named ``mcp__<server>__<tool>``."""
        tools: list[Tool] = []
        for name in self._order:
            if name in self._sdk_servers:
                server = self._sdk_servers[name]
                tools.extend(SdkTool(mcp_tool_name(name, t.name), name, t) for t in server.tools)
            elif name in self._connections and self._connections[name].state == "connected":
                tools.extend(self._connections[name].tools)
        return tools

    def instructions(self) -> dict[str, str]:
        """Server-provided instructions of connected servers, for the system prompt."""
        return {
            name: connection.instructions
            for name, connection in self._connections.items()
            if connection.state == "connected" and connection.instructions
        }

    async def aclose(self) -> None:
        """Close every connection (stdio servers are stopped, their processes reaped)."""
        connections = list(self._connections.values())
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _status(self, name: str) -> McpServerStatus:
        if name in self._sdk_servers:
            tool_count = len(self._sdk_servers[name].tools)
            return McpServerStatus(name, "connected", tool_count, None, "sdk")
        if name in self._invalid:
            return McpServerStatus(name, "failed", 0, self._invalid[name], "invalid")
        connection = self._connections[name]
        return McpServerStatus(
            name,
            connection.state,
            len(connection.tools) if connection.state == "connected" else 0,
            connection.error,
            connection.config.type,
        )
