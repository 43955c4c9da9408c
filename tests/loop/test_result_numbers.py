"""What the result message reports: API time that includes subagents', and for structured
output only the accepted answer."""

import asyncio
from typing import Any

from loopwright import AgentDefinition, run
from loopwright.models.base import ModelRequest
from loopwright.testing import FunctionModel, ScriptedModel, text, tool_call
from support import base_options, look


async def test_duration_api_ms_includes_subagent_model_time() -> None:
    async def answer(request: ModelRequest) -> Any:
        if "subagent" in request.system:
            await asyncio.sleep(0.3)
            return text("sub report")
        if len(request.messages) == 1:
            return tool_call("Agent", description="r", prompt="review", subagent_type="reviewer")
        return text("done")

    model = FunctionModel(answer)
    result = await run(
        "go",
        base_options(
            model,
            tools=[look, "Agent"],
            agents={"reviewer": AgentDefinition(description="r", prompt="Review.")},
        ),
    )
    assert result.subtype == "success"
    assert result.duration_api_ms >= 300


async def test_structured_result_text_is_only_the_accepted_answer() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    model = ScriptedModel([text("Let me think."), text('{"x": 1}')])
    result = await run(
        "go", base_options(model, output_format={"type": "json_schema", "schema": schema})
    )
    assert result.structured_output == {"x": 1}
    assert result.result == '{"x": 1}'
