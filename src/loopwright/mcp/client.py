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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal

from loopwright.errors import ConfigurationError
from loopwright.mcp.adapters import SdkTool, mcp_tool_name
from loopwright.mcp.config import InvalidServerConfig, McpServerConfig, parse_server_configs
from loopwright.mcp.connection import RECONNECT_DELAYS, AuthFactory, ServerConnection
from loopwright.mcp.host import McpHost
from loopwright.mcp.sdk_server import SdkServerConfig
from loopwright.redact import redact_text
from loopwright.tools.base import Tool

DEFAULT_CONNECT_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class McpServerStatus:
    """One server's state, as reported in the ``init`` message."""

    name: str
    status: Literal["connected", "failed", "pending", "disabled", "needs-auth"]
    tools: int = 0
    error: str | None = None
    transport: str = ""
    reconnects: int = 0  # automatic restarts after the server died

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "status": self.status, "tools": self.tools}
        if self.error is not None:
            data["error"] = redact_text(self.error)
        if self.reconnects:
            data["reconnects"] = self.reconnects
        return data


class McpManager:
    """Starts, reports on, routes calls to, and closes a session's MCP servers."""

    def __init__(
        self,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        host: McpHost | None = None,
        auth: AuthFactory | None = None,
        reconnect_delays: Sequence[float] = RECONNECT_DELAYS,
    ) -> None:
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        # Answers servers' questions (elicitation, sampling, roots) for the whole session.
        self.host = host or McpHost()
        # Makes the OAuth provider of an HTTP server (None: servers get no OAuth).
        self.auth = auth
        self.reconnect_delays = tuple(reconnect_delays)
        self._disabled: set[str] = set()
        self._toggles = 0  # enable/disable count, part of the generation
        # The generation the session's tool set reflects (kept by mcp/live.py): one manager
        # serves one session, so this is that session's own state.
        self.synced_generation: int | None = None
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
                connection = ServerConnection(
                    name, config, self.connect_timeout, self.call_timeout, self.host, self.auth
                )
                connection.reconnect_delays = self.reconnect_delays
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
            if name in self._disabled:
                continue
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

    @property
    def generation(self) -> int:
        """Changes whenever the tools on offer may have changed (reconnect, list_changed …)."""
        return self._toggles + sum(c.generation for c in self._connections.values())

    def names(self) -> list[str]:
        return list(self._order)

    def external_names(self) -> list[str]:
        """Servers spoken to over MCP (stdio, SSE, HTTP): they may have resources and prompts."""
        return list(self._connections)

    def connected(self) -> list[str]:
        """External servers that are connected now (they have resources and prompts)."""
        return [n for n, c in self._connections.items() if c.state == "connected"]

    async def reconnect(self, name: str) -> McpServerStatus:
        """Reconnect one external server now; returns its status once connected or failed."""
        connection = self._external(name, "reconnect")
        self._disabled.discard(name)
        await connection.restart()
        return self._status(name)

    async def set_enabled(self, name: str, enabled: bool) -> McpServerStatus:
        """Disable (stop, hide its tools) or enable (start again) one server."""
        if name not in self._order:
            raise self._unknown(name)
        self._toggles += 1
        if not enabled:
            self._disabled.add(name)
            if name in self._connections:
                await self._connections[name].stop("disabled", "disabled for this session")
            return self._status(name)
        self._disabled.discard(name)
        if name in self._connections and self._connections[name].state == "disabled":
            await self._connections[name].restart()
        return self._status(name)

    def connection(self, name: str) -> ServerConnection:
        """The live connection of an external server (for resources and prompts)."""
        return self._external(name, "use resources or prompts of")

    def _external(self, name: str, action: str) -> ServerConnection:
        if name in self._connections:
            return self._connections[name]
        if name in self._sdk_servers:
            raise ConfigurationError(
                f"MCP server {name!r} is an in-process server; it has only tools, so there "
                f"is nothing to {action} there"
            )
        raise self._unknown(name)

    def _unknown(self, name: str) -> ConfigurationError:
        known = ", ".join(self._order) or "none"
        return ConfigurationError(
            f"no MCP server named {name!r} in this session (configured: {known}); "
            "check the name in mcp_servers or .mcp.json"
        )

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
            if name in self._disabled:
                return McpServerStatus(name, "disabled", 0, "disabled for this session", "sdk")
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
            connection.reconnects,
        )
