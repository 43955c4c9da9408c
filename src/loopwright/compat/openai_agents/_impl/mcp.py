"""MCP servers of the OpenAI Agents SDK layer on loopwright's MCP client.

``MCPServerStdio`` / ``MCPServerSse`` / ``MCPServerStreamableHttp`` each own one loopwright
``McpManager`` connection; an agent with ``mcp_servers=[...]`` sees their tools under the
servers' own tool names (as that SDK does), filtered by ``tool_filter``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.mcp.client import McpManager
from loopwright.mcp.config import HttpServerConfig
from loopwright.mcp.errors import McpRequestError
from loopwright.tools.base import Tool, ToolResult


@dataclass(frozen=True)
class ToolFilterStatic:
    allowed_tool_names: list[str] | None = None
    blocked_tool_names: list[str] | None = None


def create_static_tool_filter(
    allowed_tool_names: list[str] | None = None, blocked_tool_names: list[str] | None = None
) -> ToolFilterStatic | None:
    if allowed_tool_names is None and blocked_tool_names is None:
        return None
    return ToolFilterStatic(allowed_tool_names, blocked_tool_names)


@dataclass(frozen=True)
class MCPTool:
    """What ``list_tools()`` returns: the server's own name, description and schema."""

    name: str
    description: str
    inputSchema: dict[str, Any]


class MCPServer:
    """One MCP server connection, opened with ``connect()`` or ``async with``."""

    def __init__(
        self,
        config: dict[str, Any] | HttpServerConfig,
        *,
        name: str | None,
        cache_tools_list: bool = False,
        client_session_timeout_seconds: float | None = 5,
        tool_filter: ToolFilterStatic | Callable[..., Any] | None = None,
    ) -> None:
        self._config = config
        self._name = name or _default_name(config)
        self._timeout = client_session_timeout_seconds
        self.tool_filter = tool_filter
        self.cache_tools_list = cache_tools_list
        self._manager: McpManager | None = None

    @property
    def name(self) -> str:
        return self._name

    async def connect(self) -> None:
        if self._manager is not None:
            return
        deadline = time.monotonic() + _REMOTE_START_GRACE
        while True:
            manager = McpManager(connect_timeout=max(self._timeout or 5, 10.0))
            statuses = await manager.start({"server": self._config})
            if statuses[0].status == "connected":
                self._manager = manager
                return
            await manager.aclose()
            error = str(statuses[0].error)
            # A remote server started just before (a subprocess) may not listen yet.
            if not _refused(self._config, error) or time.monotonic() > deadline:
                raise UserError(f"MCP server {self._name!r} did not connect: {error}")
            await asyncio.sleep(0.25)

    async def cleanup(self) -> None:
        if self._manager is not None:
            await self._manager.aclose()
            self._manager = None

    async def __aenter__(self) -> MCPServer:
        await self.connect()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.cleanup()

    def _native_tools(self) -> list[Tool]:
        if self._manager is None:
            raise UserError(
                f"MCP server {self._name!r} is not connected; use `async with` or "
                "`await server.connect()` before running the agent"
            )
        return self._manager.tools()

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[MCPTool]:
        tools = [MCPTool(_own_name(t), t.description, t.input_schema) for t in self._native_tools()]
        return [t for t in tools if await _allowed(self.tool_filter, t, run_context, agent)]

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None) -> ToolResult:
        for tool in self._native_tools():
            if _own_name(tool) == tool_name:
                return await tool.call(arguments or {}, None)  # type: ignore[arg-type]
        raise UserError(f"MCP server {self._name!r} has no tool {tool_name!r}")

    async def list_prompts(self) -> Any:
        """The server's ``ListPromptsResult`` (the mcp package's type, as the SDK returns)."""

        async def fetch(client: Any) -> Any:
            return await client.list_prompts()

        return await self._request("prompts/list", fetch)

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """The prompt filled in: a ``GetPromptResult`` with its messages."""
        values = {key: str(value) for key, value in (arguments or {}).items()}

        async def fetch(client: Any) -> Any:
            return await client.get_prompt(name, values)

        return await self._request(f"prompt {name!r}", fetch)

    async def _request(self, label: str, operation: Callable[[Any], Awaitable[Any]]) -> Any:

        self._native_tools()  # raises the "not connected" error
        assert self._manager is not None
        try:
            return await self._manager.connection("server").request(label, operation)
        except McpRequestError as exc:
            raise UserError(str(exc).replace("'server'", repr(self._name))) from exc

    def invalidate_tools_cache(self) -> None:
        """Tools are read from the live connection each time; nothing is cached."""

    async def agent_tools(self, run_context: Any = None, agent: Any = None) -> list[Tool]:
        allowed = {t.name for t in await self.list_tools(run_context, agent)}
        return [
            dataclasses.replace(t, name=_own_name(t))  # type: ignore[type-var]
            for t in self._native_tools()
            if _own_name(t) in allowed
        ]


_REMOTE_START_GRACE = 10.0  # seconds a refused remote server gets to start listening


def _refused(config: Any, error: str) -> bool:
    remote = isinstance(config, HttpServerConfig) or config.get("type") == "sse"
    return remote and "All connection attempts failed" in error


def _own_name(tool: Tool) -> str:
    return str(getattr(tool, "server_tool_name", tool.name))


async def _allowed(tool_filter: Any, tool: MCPTool, run_context: Any, agent: Any) -> bool:
    if tool_filter is None:
        return True
    if isinstance(tool_filter, ToolFilterStatic):
        allowed, blocked = tool_filter.allowed_tool_names, tool_filter.blocked_tool_names
        return (allowed is None or tool.name in allowed) and tool.name not in (blocked or [])
    produced = tool_filter(ToolFilterContext(run_context, agent, ""), tool)
    return bool(await produced if inspect.isawaitable(produced) else produced)


@dataclass
class ToolFilterContext:
    run_context: Any
    agent: Any
    server_name: str


def _default_name(config: Mapping[str, Any] | HttpServerConfig) -> str:
    if isinstance(config, HttpServerConfig):
        return config.url
    return str(config.get("command") or config.get("url") or "mcp")


class MCPServerStdio(MCPServer):
    def __init__(
        self, params: Mapping[str, Any], *, name: str | None = None, **kwargs: Any
    ) -> None:
        config = {
            "type": "stdio",
            "command": params["command"],
            "args": list(params.get("args", [])),
        }
        if params.get("env"):
            config["env"] = dict(params["env"])
        if params.get("cwd"):
            config["cwd"] = str(params["cwd"])
        super().__init__(config, name=name, **_known(kwargs))


class MCPServerSse(MCPServer):
    def __init__(
        self, params: Mapping[str, Any], *, name: str | None = None, **kwargs: Any
    ) -> None:
        config = {"type": "sse", "url": params["url"], "headers": dict(params.get("headers") or {})}
        super().__init__(config, name=name, **_known(kwargs))


class MCPServerStreamableHttp(MCPServer):
    def __init__(
        self, params: Mapping[str, Any], *, name: str | None = None, **kwargs: Any
    ) -> None:
        headers = {str(k): str(v) for k, v in (params.get("headers") or {}).items()}
        factory = params.get("httpx_client_factory")
        if factory is not None and not callable(factory):
            raise UserError(
                "httpx_client_factory must be a function (headers=, timeout=, auth=) that "
                "returns an httpx2.AsyncClient"
            )
        config = HttpServerConfig(params["url"], headers, http_client_factory=factory)
        super().__init__(config, name=name, **_known(kwargs))


def _known(kwargs: dict[str, Any]) -> dict[str, Any]:
    names = ("cache_tools_list", "client_session_timeout_seconds", "tool_filter")
    return {k: v for k, v in kwargs.items() if k in names}


class MCPServerManager:
    """Connects several servers; ``active_servers`` are those that connected."""

    def __init__(self, servers: Sequence[MCPServer], **kwargs: Any) -> None:
        self.all_servers = list(servers)
        self.active_servers: list[MCPServer] = []
        self.failed_servers: list[MCPServer] = []

    async def __aenter__(self) -> MCPServerManager:
        for server in self.all_servers:
            try:
                await server.connect()
                self.active_servers.append(server)
            except Exception:
                self.failed_servers.append(server)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for server in self.active_servers:
            await server.cleanup()


class MCPUtil:
    @staticmethod
    async def get_all_function_tools(
        servers: Sequence[MCPServer],
        convert_schemas_to_strict: bool = False,
        run_context: Any = None,
        agent: Any = None,
    ) -> list[Tool]:
        return await mcp_tools(servers, run_context, agent)


async def mcp_tools(
    servers: Sequence[Any], run_context: Any = None, agent: Any = None
) -> list[Tool]:
    tools: list[Tool] = []
    for server in servers:
        tools.extend(await server.agent_tools(run_context, agent))
    return tools
