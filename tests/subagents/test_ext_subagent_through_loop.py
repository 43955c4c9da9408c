"""A subagent run with narrowed tools really cannot call the parent's other tools."""

from __future__ import annotations

from error_advice import assert_says_what_to_do
from loopwright.client import query
from loopwright.messages import ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import AgentDefinition
from loopwright.subagents.tool import narrow_tools
from loopwright.tools.base import tool
from support import base_options

deleted: list[str] = []


@tool(read_only=True)
def look(path: str) -> str:
    """Look at a file."""
    return f"contents of {path}"


@tool
def delete(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return "deleted"


async def test_tool_outside_the_narrowed_set_is_refused_and_never_runs() -> None:
    parent_tools = [look, delete]
    reviewer = AgentDefinition(description="Reviews", prompt="Review only.", tools=["look"])
    allowed = narrow_tools([t.name for t in parent_tools], reviewer)
    sub_tools = [t for t in parent_tools if t.name in allowed]
    model = ScriptedModel([tool_call("delete", path="/etc/passwd"), text("could not delete")])

    results: list[ToolResultBlock] = []
    final: ResultMessage | None = None
    async for message in query("clean up", base_options(model, tools=list(sub_tools))):
        if isinstance(message, UserMessage) and isinstance(message.content, list):
            results += [b for b in message.content if isinstance(b, ToolResultBlock)]
        if isinstance(message, ResultMessage):
            final = message

    assert allowed == ["look"]
    [refused] = results
    assert refused.is_error is True
    assert "delete" in refused.text
    assert_says_what_to_do(refused.text, "Available tools: look")
    assert deleted == []
    assert final is not None and final.subtype == "success"
