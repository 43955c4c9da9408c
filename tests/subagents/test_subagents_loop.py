"""Subagents through the real loop: they get their own tools (no StructuredOutput, their
own ToolSearch loads) and their denials reach the parent's result."""

from loopwright import AgentDefinition, run
from loopwright.messages import ResultMessage
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options, collect, look, ran, touch

REVIEWER = AgentDefinition(description="Reviews code", prompt="Review only.")


async def test_subagent_does_not_get_the_structured_output_tool() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            text("fine"),
            tool_call("StructuredOutput", x=1),
        ]
    )
    result = await run(
        "go",
        base_options(
            model,
            tools=[look, "Agent"],
            agents={"reviewer": REVIEWER},
            output_format={"type": "json_schema", "schema": schema},
        ),
    )
    assert result.structured_output == {"x": 1}
    assert "StructuredOutput" not in [t.name for t in model.requests[1].tools]


async def test_tool_search_inside_a_subagent_loads_for_the_subagent() -> None:
    from loopwright.mcp import create_sdk_mcp_server

    ran.clear()
    server = create_sdk_mcp_server("files", tools=[look])
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            tool_call("ToolSearch", query="select:mcp__files__look"),
            tool_call("mcp__files__look", path="a"),
            text("fine"),
            text("done"),
        ]
    )
    messages = await collect(
        "go",
        base_options(
            model,
            tools=["Agent"],
            agents={"reviewer": REVIEWER},
            mcp_servers={"files": server},
            tool_search=True,
        ),
    )
    assert ran == ["look a"]
    # The parent never searched: its own tool list must be unchanged.
    parent_tools = [t.name for t in model.requests[-1].tools]
    assert "mcp__files__look" not in parent_tools
    assert isinstance(messages[-1], ResultMessage)


async def test_subagent_denials_are_listed_in_the_result() -> None:
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="make a file", subagent_type="reviewer"),
            tool_call("touch", path="x"),
            text("could not"),
            text("done"),
        ]
    )
    result = await run(
        "go",
        base_options(
            model,
            tools=[touch, "Agent"],
            agents={"reviewer": REVIEWER},
            permission_mode="default",
            allowed_tools=["Agent"],
        ),
    )
    assert [d["tool_name"] for d in result.permission_denials] == ["touch"]
