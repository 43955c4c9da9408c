"""The Agent tool and narrow_tools: what a subagent may use, and delegation to the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.options import AgentDefinition
from loopwright.subagents.tool import GENERAL_PURPOSE_NAME, make_agent_tool, narrow_tools
from loopwright.tools.base import SessionState, ToolContext, ToolResult, ToolServices

PARENT = ["Read", "Grep", "Glob", "Bash", "Edit", "Agent", "mcp__gh__issues", "mcp__gh__pulls"]

REVIEWER = AgentDefinition(
    description="Reviews code", prompt="Review.", tools=["Read", "Grep", "Glob"]
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(SessionState(tmp_path), "toolu_agent")


def test_inheriting_subagent_gets_the_parent_tools_without_agent() -> None:
    inherit = AgentDefinition(description="d", prompt="p")
    assert narrow_tools(PARENT, inherit) == [n for n in PARENT if n != "Agent"]


def test_listed_tools_are_kept_in_the_parent_order() -> None:
    assert narrow_tools(PARENT, REVIEWER) == ["Read", "Grep", "Glob"]


def test_subagent_cannot_gain_tools_the_parent_lacks() -> None:
    greedy = AgentDefinition(description="d", prompt="p", tools=["Read", "Write", "WebFetch"])
    assert narrow_tools(["Read", "Grep"], greedy) == ["Read"]


def test_agent_is_removed_even_when_listed() -> None:
    nested = AgentDefinition(description="d", prompt="p", tools=["Agent", "Read"])
    assert narrow_tools(PARENT, nested) == ["Read"]


def test_specifiers_server_prefixes_and_wildcards_grant_whole_tools() -> None:
    definition = AgentDefinition(
        description="d", prompt="p", tools=["Bash(git *)", "mcp__gh", "Gl*"]
    )
    assert narrow_tools(PARENT, definition) == ["Glob", "Bash", "mcp__gh__issues", "mcp__gh__pulls"]


def test_description_lists_every_agent_and_the_schema_enumerates_them() -> None:
    tool = make_agent_tool({"code-reviewer": REVIEWER})
    assert tool.name == "Agent"
    assert "- code-reviewer: Reviews code" in tool.description
    assert f"- {GENERAL_PURPOSE_NAME}:" in tool.description
    enum = tool.input_schema["properties"]["subagent_type"]["enum"]
    assert enum == ["code-reviewer", GENERAL_PURPOSE_NAME]


async def test_call_delegates_to_run_subagent_and_returns_its_result(ctx: ToolContext) -> None:
    calls: list[tuple[str, AgentDefinition, str, str]] = []

    async def run_subagent(
        name: str, definition: AgentDefinition, prompt: str, context: ToolContext
    ) -> ToolResult:
        calls.append((name, definition, prompt, context.tool_use_id))
        return ToolResult("final report")

    ctx.services = ToolServices(run_subagent=run_subagent)
    tool = make_agent_tool({"code-reviewer": REVIEWER})
    result = await tool.call(
        {"description": "review", "prompt": "Review auth.py", "subagent_type": "code-reviewer"},
        ctx,
    )
    assert result == ToolResult("final report")
    assert calls == [("code-reviewer", REVIEWER, "Review auth.py", "toolu_agent")]


async def test_unknown_subagent_type_lists_the_valid_names(ctx: ToolContext) -> None:
    tool = make_agent_tool({"code-reviewer": REVIEWER}, include_general_purpose=False)
    result = await tool.call({"description": "x", "prompt": "y", "subagent_type": "hacker"}, ctx)
    assert result.is_error
    assert "unknown subagent_type 'hacker'; use one of: code-reviewer" in str(result.content)


async def test_missing_run_subagent_service_is_a_clear_error(ctx: ToolContext) -> None:
    tool = make_agent_tool({})
    result = await tool.call({"description": "x", "prompt": "y"}, ctx)
    assert result.is_error and "no run_subagent service" in str(result.content)
    assert_says_what_to_do(result.content, "do the task yourself")


async def test_subagent_crash_is_an_error_result(ctx: ToolContext) -> None:
    async def run_subagent(*_: object) -> ToolResult:
        raise RuntimeError("model unavailable")

    ctx.services = ToolServices(run_subagent=run_subagent)
    tool = make_agent_tool({})
    result = await tool.call({"description": "x", "prompt": "y"}, ctx)
    assert result.is_error and "model unavailable" in str(result.content)
    assert_says_what_to_do(result.content, "or do the task yourself")


async def test_empty_prompt_is_rejected(ctx: ToolContext) -> None:
    result = await make_agent_tool({}).call({"description": "x", "prompt": " "}, ctx)
    assert result.is_error and "'prompt' is required" in str(result.content)
    assert_says_what_to_do(result.content, "write the full task for the subagent")
