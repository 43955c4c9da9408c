"""Servers that fail to start, hang, or die mid-session never hang or crash the session."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from mcp_support import child_pids, cmdline, demo_config

from error_advice import assert_says_what_to_do
from loopwright.mcp import McpManager
from loopwright.tools.base import ToolContext


async def test_missing_command_fails_while_other_servers_connect() -> None:
    async with McpManager() as manager:
        statuses = await manager.start(
            {"missing": {"command": "/nonexistent/mcp-server"}, "demo": demo_config()}
        )
    missing, demo = statuses
    assert missing.status == "failed"
    assert "command not found: '/nonexistent/mcp-server'" in (missing.error or "")
    assert demo.status == "connected"


async def test_server_that_exits_at_start_is_failed_with_its_stderr() -> None:
    crash = "import sys; print('missing API_KEY', file=sys.stderr); sys.exit(2)"
    async with McpManager() as manager:
        [status] = await manager.start(
            {"crash": {"command": sys.executable, "args": ["-c", crash]}}
        )
        assert manager.tools() == []
    assert status.status == "failed"
    assert "missing API_KEY" in (status.error or "")
    assert_says_what_to_do(status.error, "check its command, args and env")


async def test_server_that_never_answers_fails_at_the_connect_timeout() -> None:
    silent = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    async with McpManager(connect_timeout=0.5) as manager:
        [status] = await manager.start({"silent": silent})
    assert status.status == "failed"
    assert "did not connect within 0.5 s" in (status.error or "")


async def test_invalid_config_is_a_failed_server_not_an_exception() -> None:
    async with McpManager() as manager:
        [status] = await manager.start({"odd": {"type": "carrier-pigeon"}})
    assert status.status == "failed"
    assert "unknown type 'carrier-pigeon'" in (status.error or "")


async def test_server_killed_mid_session_gives_error_results_and_others_keep_working(
    ctx: ToolContext,
) -> None:
    async with McpManager(reconnect_delays=()) as manager:  # no restart: it stays down
        await manager.start({"victim": demo_config(), "survivor": demo_config()})
        tools = {t.name: t for t in manager.tools()}
        pid = int(str((await tools["mcp__victim__pid"].call({}, ctx)).content))
        os.kill(pid, signal.SIGKILL)

        first = await tools["mcp__victim__add"].call({"a": 1, "b": 2}, ctx)
        second = await tools["mcp__victim__add"].call({"a": 1, "b": 2}, ctx)
        survivor = await tools["mcp__survivor__add"].call({"a": 1, "b": 2}, ctx)
        statuses = {s.name: s for s in manager.statuses()}
        remaining = {t.name for t in manager.tools()}

    assert first.is_error and second.is_error
    assert "MCP server 'victim' is not available" in str(second.content)
    for result in (first, second):
        assert_says_what_to_do(result.content, "continue without them or ask the user to fix")
    assert survivor.content == "3"
    assert statuses["victim"].status == "failed"
    assert not any(name.startswith("mcp__victim__") for name in remaining)


async def test_server_killed_during_a_call_resolves_that_call(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"victim": demo_config()})
        tools = {t.name: t for t in manager.tools()}
        pid = int(str((await tools["mcp__victim__pid"].call({}, ctx)).content))
        running = asyncio.create_task(tools["mcp__victim__sleep"].call({"seconds": 30}, ctx))
        await asyncio.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        result = await asyncio.wait_for(running, timeout=10)
    assert result.is_error is True
    assert_says_what_to_do(result.content, "continue without them or ask the user to fix")


async def test_aclose_stops_every_server_process() -> None:
    before = child_pids()
    manager = McpManager()
    await manager.start({"one": demo_config(), "two": demo_config()})
    started = {p for p in child_pids() - before if "demo_server.py" in cmdline(p)}
    assert len(started) == 2
    await manager.aclose()
    assert not (child_pids() & started)


async def test_calls_after_aclose_are_error_results(ctx: ToolContext) -> None:
    manager = McpManager()
    await manager.start({"demo": demo_config()})
    add = next(t for t in manager.tools() if t.name == "mcp__demo__add")
    await manager.aclose()
    result = await add.call({"a": 1, "b": 1}, ctx)
    assert result.is_error is True
    assert "not available" in str(result.content)
    assert_says_what_to_do(result.content, "continue without them")


async def test_start_without_waiting_reports_pending_then_connected() -> None:
    async with McpManager() as manager:
        [status] = await manager.start({"demo": demo_config()}, wait=False)
        assert status.status == "pending"
        [ready] = await manager.wait_ready()
    assert ready.status == "connected"
