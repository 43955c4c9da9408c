"""In-process SDK MCP servers, reached as an MCP client over the control channel.

The SDK keeps the server object (``create_sdk_mcp_server`` in the user's program) and
relays JSON-RPC messages sent as ``mcp_message`` control requests. The host runs the
client's side of the protocol: ``initialize``, ``notifications/initialized``,
``tools/list``, then ``tools/call`` per call. The tools become an in-process server config
(:class:`SdkServerConfig`), so they are named ``mcp__<server>__<tool>`` and reported in
``init`` exactly like loopwright's own SDK servers, and permission rules apply alike.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from loopwright.cli.host.control import ControlChannel, ControlError
from loopwright.cli.host.versions import loopwright_version
from loopwright.mcp.adapters import object_schema
from loopwright.mcp.config import InvalidServerConfig
from loopwright.mcp.sdk_server import SdkServerConfig, create_sdk_mcp_server
from loopwright.tools.base import ToolBase, ToolContext, ToolResult, to_tool_result

PROTOCOL_VERSION = "2025-11-25"


class SdkMcpError(Exception):
    """The SDK's server could not be reached or answered with a JSON-RPC error."""


@dataclass(slots=True)
class ControlMcpClient:
    """JSON-RPC to one SDK server, each message in one ``mcp_message`` request."""

    control: ControlChannel
    server: str
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        try:
            answer = await self.control.request(
                {"subtype": "mcp_message", "server_name": self.server, "message": message}
            )
        except ControlError as exc:
            raise SdkMcpError(f"SDK MCP server {self.server!r}: {exc}") from exc
        response = answer.get("mcp_response")
        if not isinstance(response, dict):
            raise SdkMcpError(f"SDK MCP server {self.server!r} sent no JSON-RPC response")
        error = response.get("error")
        if isinstance(error, dict):
            raise SdkMcpError(f"SDK MCP server {self.server!r}: {error.get('message', error)}")
        result = response.get("result")
        return result if isinstance(result, dict) else {}

    async def notify(self, method: str) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        try:
            await self.control.request(
                {"subtype": "mcp_message", "server_name": self.server, "message": message}
            )
        except ControlError as exc:
            raise SdkMcpError(f"SDK MCP server {self.server!r}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class ControlMcpTool(ToolBase):
    """One tool of an SDK server; its calls go back to the SDK as ``tools/call``."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    client: ControlMcpClient

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        params = {
            "name": self.name,
            "arguments": input,
            "_meta": {"claudecode/toolUseId": ctx.tool_use_id},
        }
        try:
            result = await self.client.call("tools/call", params)
        except SdkMcpError as exc:
            return ToolResult.error(str(exc))
        if result.get("structuredContent") is not None and not result.get("content"):
            return to_tool_result(result["structuredContent"])
        return to_tool_result(
            {"content": result.get("content") or [], "isError": result.get("isError")}
        )


async def connect_sdk_server(
    control: ControlChannel, name: str, manifest: dict[str, Any] | None = None
) -> SdkServerConfig | InvalidServerConfig:
    """Handshake with one SDK server (or use the manifest the TypeScript SDK sent); one
    that does not answer is a failed server in ``init``, never a session that fails."""
    try:
        return await _connect(control, name, manifest)
    except SdkMcpError as exc:
        return InvalidServerConfig(f"{exc}; check the server passed to the SDK's mcp_servers")


async def _connect(
    control: ControlChannel, name: str, manifest: dict[str, Any] | None
) -> SdkServerConfig:
    client = ControlMcpClient(control, name)
    listed = (manifest or {}).get("toolsListResult")
    if not isinstance(listed, dict):
        await client.call(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "loopwright", "version": loopwright_version()},
            },
        )
        await client.notify("notifications/initialized")
        listed = await client.call("tools/list")
    tools = [
        ControlMcpTool(
            name=str(tool["name"]),
            description=str(tool.get("description") or tool["name"]),
            input_schema=object_schema(tool.get("inputSchema")),
            read_only=bool((tool.get("annotations") or {}).get("readOnlyHint")),
            client=client,
        )
        for tool in listed.get("tools") or []
    ]
    return create_sdk_mcp_server(name, tools=tools)
