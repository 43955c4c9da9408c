"""One external MCP server: a task that owns the connection, and calls sent to it by queue.

The ``mcp`` client keeps anyio cancel scopes and task groups open for the whole life of a
connection; they must be entered and exited by the same task. So each server gets one
owner task that connects, lists the tools, then serves call requests from a queue (each in
a child task, so read-only calls can overlap) until it is told to close or the connection
dies. Callers only ever wait on a future, which is always resolved — by the result, an
error, or the owner's cleanup — so a dead server can never hang the loop.
"""

from __future__ import annotations

import asyncio
import math
import os
import tempfile
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import anyio

from loopwright.mcp.adapters import McpTool, convert_call_result, mcp_tool_name, object_schema
from loopwright.mcp.config import HttpServerConfig, SseServerConfig, StdioServerConfig
from loopwright.redact import redact_text
from loopwright.tools.base import ToolResult

ServerState = Literal["pending", "connected", "failed"]
ExternalConfig = StdioServerConfig | SseServerConfig | HttpServerConfig

_MAX_TOOL_PAGES = 100  # a server that paginates forever must not hang the connect
_STDERR_TAIL_CHARS = 800
_CLOSE_GRACE_SECONDS = 10.0


@dataclass(slots=True, eq=False)  # identity hashing: requests live in a set while in flight
class _CallRequest:
    tool: str
    arguments: dict[str, Any]
    future: asyncio.Future[ToolResult]
    scope: anyio.CancelScope | None = None

    def resolve(self, result: ToolResult) -> None:
        if not self.future.done():
            self.future.set_result(result)


@dataclass(slots=True)
class ServerConnection:
    """The state of one server and the queue into the task that owns its connection."""

    name: str
    config: ExternalConfig
    connect_timeout: float
    call_timeout: float | None
    state: ServerState = "pending"
    error: str | None = None
    tools: list[McpTool] = field(default_factory=list[McpTool])
    # What the server asks clients to tell the model about it (its "instructions").
    instructions: str | None = None
    _requests: asyncio.Queue[_CallRequest | None] = field(default_factory=asyncio.Queue)
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _in_flight: set[_CallRequest] = field(default_factory=set[_CallRequest])
    _task: asyncio.Task[None] | None = None
    _stderr: IO[str] | None = None
    _closing: bool = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._own(), name=f"loopwright-mcp:{self.name}")

    async def wait_ready(self) -> None:
        await self._ready.wait()

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        await self._ready.wait()
        if self.state != "connected":
            return ToolResult.error(self._unavailable_message())
        request = _CallRequest(tool, arguments, asyncio.get_running_loop().create_future())
        self._requests.put_nowait(request)
        try:
            return await request.future
        except asyncio.CancelledError:
            # The caller gave up (interrupt or executor timeout): stop the server-side call too.
            if request.scope is not None:
                request.scope.cancel()
            raise

    async def close(self) -> None:
        task = self._task
        self._closing = True
        if task is not None and not task.done():
            self._requests.put_nowait(None)
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_GRACE_SECONDS)
            if not done:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # ----------------------------------------------------------------- owner task

    async def _own(self) -> None:
        try:
            await self._connect_and_serve()
        except BaseException as exc:  # the owner must record every ending, cancellation too
            self._mark_failed(self._describe_failure(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if self.state == "connected":
                self._mark_failed(
                    "the session closed it" if self._closing else "the connection ended"
                )
            self._ready.set()
            self._drain()

    async def _connect_and_serve(self) -> None:
        from mcp import Client  # optional dependency: imported only when a server is used

        async with AsyncExitStack() as stack:
            transport = await self._open_transport(stack)
            with anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout) as scope:
                async with Client(transport) as client:
                    listed = await _list_all_tools(client)
                    scope.deadline = math.inf  # connected: only per-call timeouts from here on
                    self.tools = [self._adapt(tool) for tool in listed]
                    self.instructions = client.instructions
                    self.state = "connected"
                    self._ready.set()
                    await self._serve(client)
            if scope.cancelled_caught and self.state == "pending":
                raise TimeoutError(f"did not connect within {self.connect_timeout:g} s")

    async def _serve(self, client: Any) -> None:
        async with anyio.create_task_group() as group:
            while self.state == "connected":
                request = await self._requests.get()
                if request is None:
                    break
                self._in_flight.add(request)  # from here on, _drain resolves it if all else fails
                group.start_soon(self._handle, client, request)
            group.cancel_scope.cancel()

    async def _handle(self, client: Any, request: _CallRequest) -> None:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        try:
            with anyio.CancelScope() as request.scope:
                with anyio.fail_after(self.call_timeout):
                    result = await client.call_tool(request.tool, request.arguments)
                request.resolve(convert_call_result(result))
        except TimeoutError:
            request.resolve(ToolResult.error(self._timeout_message(request.tool)))
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                request.resolve(ToolResult.error(self._call_failed_message(request.tool, exc)))
                return
            self._mark_failed(_with_detail("the server closed the connection", self._stderr_tail()))
            self._requests.put_nowait(None)  # wake the owner so it tears the transport down
            request.resolve(ToolResult.error(self._unavailable_message()))
        except Exception as exc:
            request.resolve(ToolResult.error(self._call_failed_message(request.tool, exc)))
        finally:
            # Unresolved here means the owner is going down; its _drain answers with the reason.
            if request.future.done():
                self._in_flight.discard(request)

    async def _open_transport(self, stack: AsyncExitStack) -> Any:
        config = self.config
        if isinstance(config, StdioServerConfig):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            # Server stderr goes to a temp file, so a failure message can quote its last lines.
            # It lives as long as the connection and is closed by close(), not a with-block.
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            parameters = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
            return stdio_client(parameters, errlog=self._stderr)
        if isinstance(config, SseServerConfig):
            from mcp.client.sse import sse_client

            return sse_client(config.url, headers=dict(config.headers) or None)
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        factory = config.http_client_factory or create_mcp_http_client
        http_client = await stack.enter_async_context(factory(headers=dict(config.headers) or None))
        return streamable_http_client(config.url, http_client=http_client)

    def _adapt(self, tool: Any) -> McpTool:
        annotations = getattr(tool, "annotations", None)
        return McpTool(
            name=mcp_tool_name(self.name, tool.name),
            description=tool.description or getattr(tool, "title", None) or tool.name,
            input_schema=object_schema(tool.input_schema),
            read_only=bool(annotations is not None and annotations.read_only_hint),
            server=self.name,
            server_tool_name=tool.name,
            caller=self.call,
        )

    # ----------------------------------------------------------------- bookkeeping

    def _mark_failed(self, reason: str) -> None:
        if self.state != "failed":
            self.state = "failed"
            self.error = redact_text(reason)  # it may name a URL with a key in it

    def _drain(self) -> None:
        message = self._unavailable_message()
        for request in list(self._in_flight):
            request.resolve(ToolResult.error(message))
        while not self._requests.empty():
            request = self._requests.get_nowait()
            if request is not None:
                request.resolve(ToolResult.error(message))

    def _describe_failure(self, exc: BaseException) -> str:
        if isinstance(exc, asyncio.CancelledError):
            return "the connection was cancelled"
        cause = _innermost(exc)
        if isinstance(cause, ModuleNotFoundError) and (cause.name or "").startswith("mcp"):
            return "the 'mcp' package is not installed; run: pip install 'loopwright[mcp]'"
        detail = str(cause) or type(cause).__name__
        if isinstance(cause, FileNotFoundError) and isinstance(self.config, StdioServerConfig):
            detail = f"command not found: {self.config.command!r}; check the path and PATH"
        elif self.state == "connected":
            detail = f"the connection was lost: {detail}"
        elif not isinstance(self.config, StdioServerConfig):
            detail = f"could not connect to {self.config.url}: {detail}"
        else:
            detail = f"the server did not start: {detail}; check its command, args and env"
        return _with_detail(detail, self._stderr_tail())

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            # Only the end matters, and a chatty server's log can be long: read just the tail.
            self._stderr.flush()
            size = os.fstat(self._stderr.fileno()).st_size
            with open(self._stderr.fileno(), "rb", closefd=False) as raw:
                raw.seek(max(0, size - 4 * _STDERR_TAIL_CHARS))
                text = raw.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f"server stderr: {text[-_STDERR_TAIL_CHARS:]}" if text else ""

    def _unavailable_message(self) -> str:
        return (
            f"MCP server {self.name!r} is not available: {self.error or 'not connected'}. "
            "Its tools cannot be used in this session; continue without them or ask the user "
            "to fix the server configuration."
        )

    def _timeout_message(self, tool: str) -> str:
        return (
            f"MCP tool {tool!r} on server {self.name!r} did not answer within "
            f"{self.call_timeout:g} s; try smaller input or another approach."
        )

    def _call_failed_message(self, tool: str, exc: BaseException) -> str:
        return redact_text(f"MCP tool {tool!r} on server {self.name!r} failed: {exc}")


async def _list_all_tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _with_detail(message: str, detail: str) -> str:
    return f"{message} ({detail})" if detail else message


def _innermost(exc: BaseException) -> BaseException:
    """The single real error inside nested exception groups (anyio task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
