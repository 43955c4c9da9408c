"""The official npm reference servers (server-filesystem, server-everything) run with node."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from mcp_support import child_pids, cmdline

from error_advice import assert_says_what_to_do
from loopwright.mcp import McpManager
from loopwright.messages import ImageBlock
from loopwright.tools.base import Tool, ToolContext


def node_server(packages: Path, name: str, *args: str) -> dict[str, Any]:
    return {"command": "node", "args": [str(packages / name / "dist" / "index.js"), *args]}


def by_name(manager: McpManager) -> dict[str, Tool]:
    return {tool.name: tool for tool in manager.tools()}


async def test_filesystem_server_lists_its_tools_with_read_only_hints(
    npm_servers: Path, tmp_path: Path
) -> None:
    async with McpManager() as manager:
        [status] = await manager.start(
            {"fs": node_server(npm_servers, "server-filesystem", str(tmp_path))}
        )
        tools = by_name(manager)
    assert status.status == "connected"
    assert tools["mcp__fs__read_text_file"].read_only is True
    assert tools["mcp__fs__write_file"].read_only is False
    assert "mcp__fs__list_directory" in tools


async def test_filesystem_server_reads_and_writes_inside_its_root(
    npm_servers: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    (tmp_path / "hello.txt").write_text("hello from disk\n")
    async with McpManager() as manager:
        await manager.start({"fs": node_server(npm_servers, "server-filesystem", str(tmp_path))})
        tools = by_name(manager)
        read = await tools["mcp__fs__read_text_file"].call(
            {"path": str(tmp_path / "hello.txt")}, ctx
        )
        wrote = await tools["mcp__fs__write_file"].call(
            {"path": str(tmp_path / "new.txt"), "content": "written"}, ctx
        )
        outside = await tools["mcp__fs__read_text_file"].call({"path": "/etc/hostname"}, ctx)
    assert "hello from disk" in str(read.content)
    assert wrote.is_error is False
    assert (tmp_path / "new.txt").read_text() == "written"
    assert outside.is_error is True
    assert "outside allowed directories" in str(outside.content)


async def test_everything_server_echo_sum_image_and_structured_content(
    npm_servers: Path, ctx: ToolContext
) -> None:
    async with McpManager() as manager:
        await manager.start({"everything": node_server(npm_servers, "server-everything", "stdio")})
        tools = by_name(manager)
        echo = await tools["mcp__everything__echo"].call({"message": "ping"}, ctx)
        total = await tools["mcp__everything__get-sum"].call({"a": 2, "b": 40}, ctx)
        image = await tools["mcp__everything__get-tiny-image"].call({}, ctx)
        weather = await tools["mcp__everything__get-structured-content"].call(
            {"location": "New York"}, ctx
        )
    assert echo.content == "Echo: ping"
    assert "42" in str(total.content)
    assert isinstance(image.content, list)
    assert any(isinstance(b, ImageBlock) and b.media_type == "image/png" for b in image.content)
    assert set(json.loads(str(weather.content))) >= {"temperature", "conditions"}


async def test_killed_npm_server_gives_error_results_and_the_other_keeps_working(
    npm_servers: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    before = child_pids()
    async with McpManager() as manager:
        await manager.start(
            {
                "everything": node_server(npm_servers, "server-everything", "stdio"),
                "fs": node_server(npm_servers, "server-filesystem", str(tmp_path)),
            }
        )
        tools = by_name(manager)
        [victim] = [p for p in child_pids() - before if "server-everything" in cmdline(p)]
        os.kill(victim, signal.SIGKILL)
        dead = await tools["mcp__everything__echo"].call({"message": "anyone?"}, ctx)
        alive = await tools["mcp__fs__list_allowed_directories"].call({}, ctx)
        statuses = {s.name: s.status for s in manager.statuses()}
    assert dead.is_error is True
    assert_says_what_to_do(dead.content, "continue without them or ask the user to fix")
    assert str(tmp_path) in str(alive.content)
    assert statuses == {"everything": "failed", "fs": "connected"}
