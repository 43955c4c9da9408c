"""MCP tools driven by a scripted model through the real loop and executor."""

from __future__ import annotations

from mcp_support import demo_config

from loopwright.client import query
from loopwright.mcp import McpManager, create_sdk_mcp_server
from loopwright.messages import ImageBlock, ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.scripted import ScriptedModel, text, tool_calls
from loopwright.tools.base import tool
from support import base_options


@tool(read_only=True)
def double(n: int) -> str:
    """Double a number."""
    return str(2 * n)


async def test_stdio_and_sdk_server_tools_run_in_one_turn() -> None:
    model = ScriptedModel(
        [
            tool_calls(
                [
                    ("mcp__demo__add", {"a": 1, "b": 2}),
                    ("mcp__demo__pixel", {}),
                    ("mcp__calc__double", {"n": 21}),
                ]
            ),
            text("done"),
        ]
    )
    results: list[ToolResultBlock] = []
    final: ResultMessage | None = None
    async with McpManager() as manager:
        await manager.start(
            {"demo": demo_config(), "calc": create_sdk_mcp_server("calc", tools=[double])}
        )
        async for message in query("go", base_options(model, tools=manager.tools())):
            if isinstance(message, UserMessage) and isinstance(message.content, list):
                results += [b for b in message.content if isinstance(b, ToolResultBlock)]
            if isinstance(message, ResultMessage):
                final = message
    assert final is not None and final.subtype == "success"
    add, pixel, doubled = results
    assert add.content == "3"
    assert isinstance(pixel.content, list) and isinstance(pixel.content[1], ImageBlock)
    assert doubled.content == "42"
