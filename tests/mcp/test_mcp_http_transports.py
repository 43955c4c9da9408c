"""Streamable HTTP and SSE transports against the python demo server on 127.0.0.1."""

from __future__ import annotations

from mcp_support import HttpDemoServer

from error_advice import assert_says_what_to_do
from loopwright.mcp import McpManager
from loopwright.tools.base import ToolContext


async def test_streamable_http_server_lists_and_calls_tools(
    http_server: HttpDemoServer, ctx: ToolContext
) -> None:
    config = {"type": "http", "url": http_server.url("/mcp"), "headers": {"X-Token": "t"}}
    async with McpManager() as manager:
        [status] = await manager.start({"remote": config})
        tools = {t.name: t for t in manager.tools()}
        result = await tools["mcp__remote__add"].call({"a": 20, "b": 22}, ctx)
    assert status.status == "connected"
    assert tools["mcp__remote__add"].read_only is True
    assert result.content == "42"


async def test_sse_server_lists_and_calls_tools(
    sse_server: HttpDemoServer, ctx: ToolContext
) -> None:
    async with McpManager() as manager:
        [status] = await manager.start({"legacy": {"type": "sse", "url": sse_server.url("/sse")}})
        tools = {t.name: t for t in manager.tools()}
        result = await tools["mcp__legacy__shout"].call({"text": "sse"}, ctx)
    assert status.status == "connected"
    assert result.content == "SSE"


async def test_unreachable_http_server_is_failed_with_the_url() -> None:
    async with McpManager(connect_timeout=5) as manager:
        [status] = await manager.start({"gone": {"type": "http", "url": "http://127.0.0.1:9/mcp"}})
    assert status.status == "failed"
    assert "could not connect to http://127.0.0.1:9/mcp" in (status.error or "")


async def test_http_server_stopped_mid_session_gives_error_results(
    http_server: HttpDemoServer, ctx: ToolContext
) -> None:
    async with McpManager() as manager:
        await manager.start({"remote": {"type": "http", "url": http_server.url("/mcp")}})
        add = next(t for t in manager.tools() if t.name == "mcp__remote__add")
        http_server.stop()
        first = await add.call({"a": 1, "b": 1}, ctx)
        second = await add.call({"a": 1, "b": 1}, ctx)
    assert first.is_error and second.is_error
    assert "not available" in str(second.content)
    for result in (first, second):
        assert_says_what_to_do(result.content, "continue without them or ask the user to fix")
