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
import tempfile
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import IO, Any, Literal, TextIO, cast

import anyio

from loopwright import processes
from loopwright.mcp.adapters import (
    McpTool,
    ProgressFn,
    convert_call_result,
    mcp_tool_name,
    object_schema,
)
from loopwright.mcp.config import HttpServerConfig, SseServerConfig, StdioServerConfig
from loopwright.mcp.errors import McpRequestError
from loopwright.mcp.failures import (
    call_failed_message,
    connection_lost,
    describe_failure,
    stderr_tail,
    timeout_message,
    unavailable_message,
    with_detail,
)
from loopwright.mcp.host import McpHost
from loopwright.redact import redact_text
from loopwright.tools.base import ToolResult

ServerState = Literal["pending", "connected", "failed", "disabled", "needs-auth"]
ExternalConfig = StdioServerConfig | SseServerConfig | HttpServerConfig
Operation = Callable[[Any], Awaitable[Any]]
AuthFactory = Callable[[str, "SseServerConfig | HttpServerConfig"], Any]

_MAX_TOOL_PAGES = 100  # a server that paginates forever must not hang the connect
_CLOSE_GRACE_SECONDS = 10.0
# A stdio server that dies is started again after 0.5, 1, 2, 4, 8 s; then it stays failed.
RECONNECT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
_PING_SECONDS = 5.0


@dataclass(slots=True, eq=False)  # identity hashing: requests live in a set while in flight
class _Request:
    label: str  # for messages: "tool 'add'", "resources/read"
    operation: Operation
    future: asyncio.Future[Any]
    scope: anyio.CancelScope | None = None

    def resolve(self, result: Any) -> None:
        if not self.future.done():
            self.future.set_result(result)

    def fail(self, message: str) -> None:
        if not self.future.done():
            self.future.set_exception(McpRequestError(message))


@dataclass(slots=True)
class ServerConnection:
    """The state of one server and the queue into the task that owns its connection."""

    name: str
    config: ExternalConfig
    connect_timeout: float
    call_timeout: float | None
    host: McpHost = field(default_factory=McpHost)
    # The OAuth provider (an httpx Auth) of an HTTP server, made per connection attempt.
    auth: AuthFactory | None = None
    state: ServerState = "pending"
    error: str | None = None
    tools: list[McpTool] = field(default_factory=list[McpTool])
    # What the server asks clients to tell the model about it (its "instructions").
    instructions: str | None = None
    # Bumped whenever the tools (or prompts, resources) the server offers may have changed.
    generation: int = 0
    # Waits before each automatic restart of a stdio server that died; () = never restart.
    reconnect_delays: tuple[float, ...] = RECONNECT_DELAYS
    reconnects: int = 0  # automatic restarts after the server died
    _requests: asyncio.Queue[_Request | None] = field(default_factory=asyncio.Queue)
    _ready: asyncio.Event = field(default_factory=asyncio.Event)
    _in_flight: set[_Request] = field(default_factory=set[_Request])
    _task: asyncio.Task[None] | None = None
    _stderr: IO[str] | None = None
    _went_up: bool = False  # the current attempt got connected
    _backing_off: bool = False  # between a crash and the next automatic start
    _halt: bool = False  # stopped on purpose (close, disable, reconnect): no auto-restart

    def start(self) -> None:
        self._halt = False
        self._ready.clear()
        self._requests = asyncio.Queue()
        self.state, self.error = "pending", None
        self._task = asyncio.create_task(self._own(), name=f"loopwright-mcp:{self.name}")

    async def wait_ready(self) -> None:
        await self._ready.wait()

    async def call(
        self, tool: str, arguments: dict[str, Any], on_progress: ProgressFn | None = None
    ) -> ToolResult:
        async def operation(client: Any) -> Any:
            return await client.call_tool(tool, arguments, progress_callback=on_progress)

        try:
            result = await self.request(f"tool {tool!r}", operation, self.call_timeout)
        except McpRequestError as exc:
            return ToolResult.error(str(exc))
        return convert_call_result(result)

    async def request(self, label: str, operation: Operation, timeout: float | None = None) -> Any:
        """Run ``operation(client)`` in the owner task; McpRequestError says what went wrong."""
        await self._ready.wait()
        if self.state != "connected":
            raise McpRequestError(unavailable_message(self.name, self.error))
        request = _Request(label, operation, asyncio.get_running_loop().create_future())
        self._requests.put_nowait(request)
        try:
            if timeout is None:
                return await request.future
            with anyio.fail_after(timeout):
                return await asyncio.shield(request.future)
        except TimeoutError:
            raise McpRequestError(timeout_message(self.name, label, self.call_timeout)) from None
        finally:
            # The caller gave up (interrupt, timeout): stop the server-side request too; the
            # mcp client then sends notifications/cancelled.
            if not request.future.done() and request.scope is not None:
                request.scope.cancel()

    async def stop(self, state: ServerState = "failed", reason: str | None = None) -> None:
        """End the connection on purpose (no automatic restart) and record why."""
        self._halt = True
        task = self._task
        if task is not None and not task.done() and self._backing_off:
            task.cancel()  # waiting to restart: nothing to close gracefully
            await asyncio.gather(task, return_exceptions=True)
            self.error = (self.error or "").split("; reconnecting")[0] or None
        if task is not None and not task.done():
            self._requests.put_nowait(None)
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_GRACE_SECONDS)
            if not done:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if reason is not None:
            self.state, self.error = state, reason
            self._ready.set()

    async def restart(self) -> None:
        """Reconnect now (after a crash, a login, or when asked), and wait for the outcome."""
        await self.stop()
        self.reconnects = 0
        self.start()
        await self.wait_ready()

    async def close(self) -> None:
        await self.stop()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # ----------------------------------------------------------------- owner task

    async def _own(self) -> None:
        delays = iter(self.reconnect_delays)
        while True:
            was_connected = await self._run_once()
            if was_connected:
                delays = iter(self.reconnect_delays)  # it ran: a new crash gets a fresh series
            delay = next(delays, None) if self._restartable(was_connected) else None
            if delay is None:
                return
            self.error = f"{self.error}; reconnecting in {delay:g} s"
            self._backing_off = True
            try:
                await asyncio.sleep(delay)  # backoff: a crashing server must not spin
            finally:
                self._backing_off = False
            if self._halt:
                return
            self.reconnects += 1
            self.state, self.error = "pending", None
            self._ready.clear()

    def _restartable(self, was_connected: bool) -> bool:
        # Only a local process that ran and then died is restarted by itself; a remote server
        # or a command that never started would just fail again.
        return (
            not self._halt
            and isinstance(self.config, StdioServerConfig)
            and (was_connected or self.reconnects > 0)
        )

    async def _run_once(self) -> bool:
        """One connection, from connect to its end; whether it got connected."""
        self._went_up = False
        try:
            await self._connect_and_serve()
        except BaseException as exc:  # the owner must record every ending, cancellation too
            self._mark_failed(self._describe_failure(exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if self.state == "connected":
                self._mark_failed("the session closed it" if self._halt else "the connection ended")
            self._ready.set()
            self._drain()
        return self._went_up

    async def _connect_and_serve(self) -> None:
        from mcp import Client  # optional dependency: imported only when a server is used

        async with AsyncExitStack() as stack:
            transport = await self._open_transport(stack)
            with anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout) as scope:
                async with Client(transport, **self._callbacks()) as client:
                    listed = await _list_all_tools(client)
                    scope.deadline = math.inf  # connected: only per-call timeouts from here on
                    self.tools = [self._adapt(tool) for tool in listed]
                    self.instructions = client.instructions
                    self.state = "connected"
                    self._went_up = True
                    self.generation += 1
                    self._ready.set()
                    await self._serve(client)
            if scope.cancelled_caught and self.state == "pending":
                raise TimeoutError(f"did not connect within {self.connect_timeout:g} s")

    def _callbacks(self) -> dict[str, Any]:
        name, host = self.name, self.host

        async def elicit(context: Any, params: Any) -> Any:
            return await host.elicit(name, params)

        async def sample(context: Any, params: Any) -> Any:
            return await host.sample(name, params)

        async def roots(context: Any) -> Any:
            return await host.roots()

        callbacks: dict[str, Any] = {
            "elicitation_callback": elicit,
            "list_roots_callback": roots,
            "message_handler": self._on_message,
        }
        if host.allow_sampling:  # not advertised unless the user allowed it
            callbacks["sampling_callback"] = sample
        return callbacks

    async def _on_message(self, message: Any) -> None:
        # Legacy (pre-2026) servers push list-changed notifications to the message handler.
        method = getattr(getattr(message, "root", message), "method", "")
        if method == "notifications/tools/list_changed":
            self._requests.put_nowait(_Request("tools/list", self._relist, _detached()))
        elif method in (
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ):
            self.generation += 1

    async def _relist(self, client: Any) -> None:
        listed = await _list_all_tools(client, cache_mode="refresh")
        self.tools = [self._adapt(tool) for tool in listed]
        self.generation += 1

    async def _watch(self, client: Any) -> None:
        """Notice list changes, and a server that dies while idle (nothing else would tell).

        Modern (2026-07-28) servers publish list changes on a subscriptions/listen stream,
        whose abrupt end means the connection is gone; legacy ones push notifications to
        the message handler, and a ping now and then finds a dead one.
        """
        if client.protocol_version < "2026-07-28":
            while await self._alive(client):
                await anyio.sleep(_PING_SECONDS)
            return
        from mcp.shared.subscriptions import ToolsListChanged

        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as subscription:
                async for event in subscription:
                    if isinstance(event, ToolsListChanged):
                        await self._relist(client)
                    else:
                        self.generation += 1
        except Exception as exc:
            if connection_lost(exc):
                self._lost()

    async def _alive(self, client: Any) -> bool:
        with warnings.catch_warnings():  # deprecated only for 2026 servers, never used there
            warnings.simplefilter("ignore", UserWarning)  # MCPDeprecationWarning is one
            ping = client.send_ping()  # the warning is raised here, when the call is made
        try:
            with anyio.fail_after(self.connect_timeout):
                await ping
        except Exception:
            self._lost()
            return False
        return True

    def _lost(self) -> None:
        self._mark_failed(self._lost_with_log("the server stopped answering"))
        self._requests.put_nowait(None)  # wake the owner so it tears the transport down

    async def _serve(self, client: Any) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch, client)
            while self.state == "connected":
                request = await self._requests.get()
                if request is None:
                    break
                self._in_flight.add(request)  # from here on, _drain resolves it if all else fails
                group.start_soon(self._handle, client, request)
            group.cancel_scope.cancel()

    async def _handle(self, client: Any, request: _Request) -> None:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        try:
            with anyio.CancelScope() as request.scope:
                request.resolve(await request.operation(client))
            if not request.future.done():  # its caller gave up (interrupt, timeout)
                request.future.cancel()
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                request.fail(
                    call_failed_message(
                        self.name, request.label, exc, allow_sampling=self.host.allow_sampling
                    )
                )
                return
            self._mark_failed(self._lost_with_log("the server closed the connection"))
            self._requests.put_nowait(None)  # wake the owner so it tears the transport down
            request.fail(unavailable_message(self.name, self.error))
        except Exception as exc:
            request.fail(
                call_failed_message(
                    self.name, request.label, exc, allow_sampling=self.host.allow_sampling
                )
            )
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
            if self._stderr is None:  # one file for every restart: the tail is the latest run
                self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            parameters = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
            return _tracked(stdio_client(parameters, errlog=cast(TextIO, self._stderr)))
        if isinstance(config, SseServerConfig):
            from mcp.client.sse import sse_client

            return sse_client(config.url, headers=dict(config.headers) or None, auth=self._auth())
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        factory = config.http_client_factory or create_mcp_http_client
        http_client = await stack.enter_async_context(
            factory(headers=dict(config.headers) or None, auth=self._auth())
        )
        return streamable_http_client(config.url, http_client=http_client)

    def _auth(self) -> Any:
        config = self.config
        if self.auth is None or isinstance(config, StdioServerConfig):
            return None
        if any(key.lower() == "authorization" for key in config.headers):
            return None  # the user brings their own credentials
        return self.auth(self.name, config)

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
        if self.state == "failed" or (self.state == "needs-auth" and self.error):
            return
        if self.state != "needs-auth":
            self.state = "failed"
        self.error = redact_text(reason)  # it may name a URL with a key in it

    def _describe_failure(self, exc: BaseException) -> str:
        failure = describe_failure(exc, self.config, connected=self.state == "connected")
        if failure.needs_auth:
            self.state = "needs-auth"
        return with_detail(failure.message, stderr_tail(self._stderr) if failure.show_log else "")

    def _call_failed(self, label: str, exc: BaseException) -> str:
        return call_failed_message(self.name, label, exc, allow_sampling=self.host.allow_sampling)

    def _lost_with_log(self, what: str) -> str:
        return with_detail(what, stderr_tail(self._stderr))

    def _drain(self) -> None:
        message = unavailable_message(self.name, self.error)
        for request in list(self._in_flight):
            request.fail(message)
        self._in_flight.clear()
        while not self._requests.empty():
            request = self._requests.get_nowait()
            if request is not None:
                request.fail(message)


@asynccontextmanager
async def _tracked(transport: AbstractAsyncContextManager[Any]) -> AsyncGenerator[Any, None]:
    """A stdio transport whose server ends with this process, like every child we start.

    The MCP SDK starts the server in a session of its own and keeps its pid to itself, so
    the new session leaders among our children are found before and after the start and
    tracked (a SIGTERM that skips the loop's clean-up still reaches the server's group)."""
    before = processes.child_session_leaders()
    started: frozenset[int] = frozenset()
    try:
        async with transport as streams:
            started = processes.child_session_leaders() - before - processes.tracked_groups()
            for pgid in started:
                processes.track(pgid)
            yield streams
    finally:
        processes.forget_ended(started)  # the SDK stopped it; a live one stays tracked


async def _list_all_tools(client: Any, cache_mode: str = "use") -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _detached() -> asyncio.Future[Any]:
    """A future nobody awaits (internal requests): its outcome is not retrieved."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
    return future
