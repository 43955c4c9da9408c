"""The MCP client against a real stdio server written with the mcp package's MCPServer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from mcp_support import demo_config

from loopwright.mcp import McpManager
from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.base import Tool, ToolContext

# One server process serves the tests that only list or call; starting python is the slow part.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared() -> AsyncIterator[McpManager]:
    async with McpManager() as manager:
        await manager.start({"demo": demo_config()})
        yield manager


def by_name(manager: McpManager) -> dict[str, Tool]:
    return {tool.name: tool for tool in manager.tools()}


async def test_connected_server_reports_status_and_tool_count() -> None:
    async with McpManager() as manager:
        statuses = await manager.start({"demo": demo_config()})
    assert [s.to_dict() for s in statuses] == [{"name": "demo", "status": "connected", "tools": 8}]


async def test_tools_are_named_mcp_server_tool_with_the_server_schema(shared: McpManager) -> None:
    tools = by_name(shared)
    assert "mcp__demo__add" in tools
    add = tools["mcp__demo__add"]
    assert add.description == "Add two integers."
    assert add.input_schema["type"] == "object"
    assert set(add.input_schema["required"]) == {"a", "b"}


async def test_read_only_hint_marks_tools_read_only(shared: McpManager) -> None:
    tools = by_name(shared)
    assert tools["mcp__demo__add"].read_only is True
    assert tools["mcp__demo__weather"].read_only is True
    assert tools["mcp__demo__shout"].read_only is False


async def test_text_result(shared: McpManager, ctx: ToolContext) -> None:
    result = await by_name(shared)["mcp__demo__shout"].call({"text": "hi"}, ctx)
    assert result.content == "HI"
    assert result.is_error is False


async def test_image_result_becomes_image_block(shared: McpManager, ctx: ToolContext) -> None:
    result = await by_name(shared)["mcp__demo__pixel"].call({}, ctx)
    assert isinstance(result.content, list)
    text, image = result.content
    assert text == TextBlock("one pixel:")
    assert isinstance(image, ImageBlock)
    assert image.media_type == "image/png"
    assert image.data.startswith("iVBOR")


async def test_structured_content_becomes_json_text(shared: McpManager, ctx: ToolContext) -> None:
    result = await by_name(shared)["mcp__demo__weather"].call({"city": "Oslo"}, ctx)
    assert isinstance(result.content, str)
    assert json.loads(result.content) == {"city": "Oslo", "celsius": 21.5}


async def test_tool_error_is_an_error_result(shared: McpManager, ctx: ToolContext) -> None:
    result = await by_name(shared)["mcp__demo__fail"].call({"reason": "disk full"}, ctx)
    assert result.is_error is True
    assert "disk full" in str(result.content)


async def test_invalid_arguments_are_an_error_result(shared: McpManager, ctx: ToolContext) -> None:
    result = await by_name(shared)["mcp__demo__add"].call({"a": "x"}, ctx)
    assert result.is_error is True


async def test_call_timeout_is_an_error_result_and_the_server_stays_usable(
    ctx: ToolContext,
) -> None:
    async with McpManager(call_timeout=0.5) as manager:
        await manager.start({"demo": demo_config()})
        tools = by_name(manager)
        slow = await tools["mcp__demo__sleep"].call({"seconds": 30}, ctx)
        after = await tools["mcp__demo__add"].call({"a": 1, "b": 1}, ctx)
    assert slow.is_error is True
    assert "did not answer within 0.5 s" in str(slow.content)
    assert after.content == "2"


async def test_concurrent_calls_to_one_server_overlap(shared: McpManager, ctx: ToolContext) -> None:
    sleep = by_name(shared)["mcp__demo__sleep"]
    started = asyncio.get_running_loop().time()
    results = await asyncio.gather(*(sleep.call({"seconds": 0.5}, ctx) for _ in range(4)))
    elapsed = asyncio.get_running_loop().time() - started
    assert [r.content for r in results] == ["slept"] * 4
    assert elapsed < 1.5  # four half-second calls ran side by side, not one after another


async def test_env_reaches_the_stdio_server(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"demo": demo_config(DEMO_TOKEN="s3cret")})
        result = await by_name(manager)["mcp__demo__env"].call({"name": "DEMO_TOKEN"}, ctx)
    assert result.content == "s3cret"


async def test_cancelled_caller_does_not_break_the_connection(
    shared: McpManager, ctx: ToolContext
) -> None:
    tools = by_name(shared)
    pending = asyncio.create_task(tools["mcp__demo__sleep"].call({"seconds": 30}, ctx))
    await asyncio.sleep(0.3)
    pending.cancel()
    await asyncio.gather(pending, return_exceptions=True)
    after = await tools["mcp__demo__add"].call({"a": 2, "b": 2}, ctx)
    assert after.content == "4"


async def test_server_instructions_are_available_for_the_system_prompt(
    shared: McpManager,
) -> None:
    assert shared.instructions() == {"demo": "Use add for sums."}
