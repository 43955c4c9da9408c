"""In-process servers from create_sdk_mcp_server: named, reported and called like MCP tools."""

from __future__ import annotations

import pytest

from error_advice import assert_says_what_to_do
from loopwright.mcp import McpManager, create_sdk_mcp_server
from loopwright.tools.base import ToolContext, tool


@tool(read_only=True)
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@tool
async def where(ctx: ToolContext) -> str:
    """The session's working directory."""
    return str(ctx.cwd)


@tool
def explode() -> str:
    """Always raises."""
    raise RuntimeError("kaboom")


async def test_sdk_server_is_connected_with_prefixed_tools() -> None:
    calc = create_sdk_mcp_server("calc", tools=[add, where])
    async with McpManager() as manager:
        [status] = await manager.start({"calc": calc})
        tools = {t.name: t for t in manager.tools()}
    assert status.to_dict() == {"name": "calc", "status": "connected", "tools": 2}
    assert set(tools) == {"mcp__calc__add", "mcp__calc__where"}
    assert tools["mcp__calc__add"].read_only is True
    assert tools["mcp__calc__where"].read_only is False
    assert tools["mcp__calc__add"].input_schema == add.input_schema


async def test_sdk_tool_is_called_in_process_with_the_session_context(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"calc": create_sdk_mcp_server("calc", tools=[add, where])})
        tools = {t.name: t for t in manager.tools()}
        total = await tools["mcp__calc__add"].call({"a": 2, "b": 3}, ctx)
        cwd = await tools["mcp__calc__where"].call({}, ctx)
    assert total.content == "5"
    assert cwd.content == str(ctx.cwd)


async def test_sdk_tool_exception_and_bad_input_are_error_results(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"calc": create_sdk_mcp_server("calc", tools=[add, explode])})
        tools = {t.name: t for t in manager.tools()}
        boom = await tools["mcp__calc__explode"].call({}, ctx)
        bad = await tools["mcp__calc__add"].call({"a": "two"}, ctx)
    assert boom.is_error and "kaboom" in str(boom.content)
    assert bad.is_error and "invalid arguments" in str(bad.content)
    assert_says_what_to_do(bad.content, "Call it again with arguments that match its input schema")


async def test_sdk_server_config_dict_form_is_accepted() -> None:
    calc = create_sdk_mcp_server("calc", tools=[add])
    async with McpManager() as manager:
        [status] = await manager.start({"calc": {"type": "sdk", "name": "calc", "instance": calc}})
    assert status.status == "connected"


def test_sdk_server_rejects_duplicate_tool_names() -> None:
    with pytest.raises(ValueError, match="two tools are named 'add'"):
        create_sdk_mcp_server("calc", tools=[add, add])


def test_sdk_server_rejects_plain_functions() -> None:
    def not_a_tool() -> None: ...

    with pytest.raises(TypeError, match="decorate the function with @tool"):
        create_sdk_mcp_server("calc", tools=[not_a_tool])  # type: ignore[list-item]
