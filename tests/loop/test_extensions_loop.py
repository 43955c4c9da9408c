"""Subagents, structured output, MCP, skills and ToolSearch through the real loop."""

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from loopwright import AgentDefinition, Options, run, tool
from loopwright.mcp import create_sdk_mcp_server
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
)
from loopwright.testing import ScriptedModel, raw_tool_call, text, tool_call
from support import base_options, collect, tool_results

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


# --------------------------------------------------------------------------- subagents

REVIEWER = AgentDefinition(description="Reviews code", prompt="Review only.", tools=["look"])


async def test_subagent_runs_with_fresh_context_and_only_its_final_text_returns() -> None:
    model = ScriptedModel(
        [
            tool_call(
                "Agent", description="review", prompt="Review a.py", subagent_type="reviewer"
            ),
            tool_call("look", path="a.py"),  # the subagent's turn
            text("a.py looks fine"),  # the subagent's final report
            text("The reviewer says a.py is fine."),
        ]
    )
    options = base_options(model, tools=[look, delete, "Agent"], agents={"reviewer": REVIEWER})
    messages = await collect("review a.py", options)

    agent_call = next(m for m in messages if isinstance(m, AssistantMessage)).tool_calls[0]
    tagged = [m for m in messages if getattr(m, "parent_tool_use_id", None) == agent_call.id]
    assert any(isinstance(m, AssistantMessage) and m.text == "a.py looks fine" for m in tagged)
    parent_results = [
        b
        for m in messages
        if isinstance(m, UserMessage) and m.parent_tool_use_id is None
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    assert parent_results[0].text == "a.py looks fine"
    sub_request = model.requests[1]
    assert [t.name for t in sub_request.tools] == ["look"]
    assert sub_request.system.startswith("Review only.")
    assert len(sub_request.messages) == 1  # fresh context: only its task
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.usage.input_tokens == 40  # four model calls, subagent's included
    assert result.num_turns == 1


async def test_subagent_cannot_call_tools_outside_its_set() -> None:
    deleted.clear()
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="clean up", subagent_type="reviewer"),
            tool_call("delete", path="/etc/passwd"),
            text("could not delete"),
            text("done"),
        ]
    )
    options = base_options(model, tools=[look, delete, "Agent"], agents={"reviewer": REVIEWER})
    messages = await collect("go", options)
    refused = [r for r in tool_results(messages) if "delete" in r.text and r.is_error]
    assert refused and deleted == []


async def test_agent_files_are_loaded_from_project_settings(tmp_path: Path) -> None:
    agents_dir = tmp_path / ".claude" / "agents"
    agents_dir.mkdir(parents=True)
    (agents_dir / "doc-writer.md").write_text(
        "---\nname: doc-writer\ndescription: Writes docs\ntools: look\n---\nWrite docs.\n"
    )
    model = ScriptedModel([text("hi")])
    messages = await collect(
        "x",
        Options(
            permission_mode="bypassPermissions",
            model=model,
            cwd=tmp_path,
            tools=[look, "Agent"],
            setting_sources=["project"],
        ),
    )
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert "doc-writer" in init.data["agents"]


# --------------------------------------------------------------------------- structured output

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


async def test_structured_output_valid_first_time() -> None:
    model = ScriptedModel([tool_call("StructuredOutput", name="Ada", age=36)])
    result = await run(
        "who?",
        base_options(model, tools=[], output_format={"type": "json_schema", "schema": SCHEMA}),
    )
    assert (result.subtype, result.structured_output) == ("success", {"name": "Ada", "age": 36})


async def test_structured_output_valid_after_two_invalid_attempts() -> None:
    model = ScriptedModel(
        [
            tool_call("StructuredOutput", name="Ada", age="old"),
            text("Ada is 36"),
            tool_call("StructuredOutput", name="Ada", age=36),
        ]
    )
    messages = await collect(
        "who?",
        base_options(model, tools=[], output_format={"type": "json_schema", "schema": SCHEMA}),
    )
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.structured_output == {"name": "Ada", "age": 36}
    assert "age" in tool_results(messages)[0].text  # the model was told what to fix
    assert "StructuredOutput" in str(model.requests[2].messages[-1].content)


async def test_structured_output_never_valid_ends_with_retries_error() -> None:
    model = ScriptedModel([text("no json here")] * 6)
    result = await run(
        "who?",
        base_options(model, tools=[], output_format={"type": "json_schema", "schema": SCHEMA}),
    )
    assert result.subtype == "error_max_structured_output_retries"
    model.assert_complete()


async def test_structured_output_from_a_pydantic_model() -> None:
    class Person(BaseModel):
        name: str
        age: int

    model = ScriptedModel([raw_tool_call("StructuredOutput", '{"name": "Lin", "age": 7}')])
    result = await run(
        "who?",
        base_options(model, tools=[], output_format=Person),
    )
    assert result.structured_output == {"name": "Lin", "age": 7}


# --------------------------------------------------------------------------- MCP, skills


async def test_in_process_mcp_server_tools_run_through_the_loop() -> None:
    @tool(read_only=True)
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server = create_sdk_mcp_server("calc", tools=[add])
    model = ScriptedModel([tool_call("mcp__calc__add", a=2, b=3), text("5")])
    messages = await collect(
        "2+3",
        base_options(model, tools=[], mcp_servers={"calc": server}),
    )
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert init.data["mcp_servers"][0]["status"] == "connected"
    assert "mcp__calc__add" in init.data["tools"]
    assert tool_results(messages)[0].text == "5"


async def test_failed_mcp_server_is_reported_and_the_session_goes_on(tmp_path: Path) -> None:
    broken = {"type": "stdio", "command": str(tmp_path / "no-such-server")}
    model = ScriptedModel([text("still here")])
    messages = await collect(
        "x",
        base_options(model, tools=[], mcp_servers={"gone": broken}, mcp_connect_timeout=10),
    )
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.data["mcp_servers"][0]["status"] == "failed"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "still here"


async def test_tool_search_defers_mcp_tools_until_loaded() -> None:
    @tool(read_only=True)
    def weather(city: str) -> str:
        """Current weather for a city."""
        return f"sunny in {city}"

    server = create_sdk_mcp_server("wx", tools=[weather])
    model = ScriptedModel(
        [
            tool_call("ToolSearch", query="weather"),
            tool_call("mcp__wx__weather", city="Oslo"),
            text("sunny"),
        ]
    )
    messages = await collect(
        "weather?",
        base_options(model, tools=[], mcp_servers={"wx": server}, tool_search=True),
    )
    assert [t.name for t in model.requests[0].tools] == ["ToolSearch"]
    assert "mcp__wx__weather" in [t.name for t in model.requests[1].tools]
    assert tool_results(messages)[1].text == "sunny in Oslo"


async def test_skills_are_listed_and_loaded_on_demand(tmp_path: Path) -> None:
    skill = tmp_path / ".claude" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release\ndescription: Cut a release\n---\nStep 1: bump the version.\n"
    )
    model = ScriptedModel([tool_call("Skill", skill="release"), text("ok")])
    messages = await collect(
        "ship it",
        Options(
            permission_mode="bypassPermissions",
            model=model,
            cwd=tmp_path,
            tools=["Skill"],
            setting_sources=["project"],
        ),
    )
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.data["skills"] == ["release"]
    assert "release: Cut a release" in model.requests[0].system
    assert "bump the version" in tool_results(messages)[0].text


@pytest.mark.parametrize(("sources", "found"), [([], []), (None, ["x"]), (["user"], [])])
async def test_setting_sources_choose_what_is_read_from_disk(
    tmp_path: Path, sources: Any, found: list[str]
) -> None:
    (tmp_path / ".claude" / "skills" / "x").mkdir(parents=True)
    (tmp_path / ".claude" / "skills" / "x" / "SKILL.md").write_text(
        "---\nname: x\ndescription: d\n---\nbody\n"
    )
    options = Options(model=ScriptedModel([text("a")]), cwd=tmp_path, setting_sources=sources)
    messages = await collect("x", options)
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.data["skills"] == found


async def test_subagent_cannot_grant_itself_more_permissions(tmp_path: Path) -> None:
    loose = AgentDefinition(
        description="d", prompt="p", tools=["Bash"], permission_mode="bypassPermissions"
    )
    model = ScriptedModel(
        [
            tool_call("Agent", description="d", prompt="make a file", subagent_type="loose"),
            tool_call("Bash", command="touch escaped"),
            text("tried"),
            text("done"),
        ]
    )
    options = Options(
        model=model,
        cwd=tmp_path,
        tools=["Bash", "Agent"],
        agents={"loose": loose},
        setting_sources=[],
    )
    messages = await collect("go", options)
    assert not (tmp_path / "escaped").exists()
    assert any(r.is_error for r in tool_results(messages))


async def test_subagent_hooks_fire_around_the_subagent(tmp_path: Path) -> None:
    from loopwright.hooks.runner import HookMatcher

    events: list[tuple[str, str]] = []

    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        events.append((input["hook_event_name"], input.get("agent_type", "")))
        return {}

    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            text("fine"),
            text("done"),
        ]
    )
    hooks = {
        "SubagentStart": [HookMatcher(None, [note])],
        "SubagentStop": [HookMatcher(None, [note])],
    }
    await run(
        "go",
        base_options(
            model, cwd=tmp_path, tools=[look, "Agent"], agents={"reviewer": REVIEWER}, hooks=hooks
        ),
    )
    assert events == [("SubagentStart", "reviewer"), ("SubagentStop", "reviewer")]


async def test_subagent_spends_only_what_the_parent_has_left() -> None:
    from loopwright.cost import ModelPrice, register_price

    register_price("budget-test-model", ModelPrice(1_000_000.0, 0.0, 0.0, 0.0))  # $10 a call
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="look around", subagent_type="reviewer"),
            tool_call("look", path="a"),  # subagent: $10 of the $15 left
            tool_call("look", path="b"),  # subagent: $20 ≥ $15, it stops here
            text("parent goes on"),
        ],
        name="budget-test-model",
    )
    options = base_options(
        model, tools=[look, "Agent"], agents={"reviewer": REVIEWER}, max_budget_usd=25.0
    )
    messages = await collect("go", options)
    agent_result = next(
        b
        for m in messages
        if isinstance(m, UserMessage) and m.parent_tool_use_id is None
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    )
    assert agent_result.is_error and "error_max_budget_usd" in agent_result.text
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_max_budget_usd"
    assert result.total_cost_usd == pytest.approx(40.0)


async def test_untrusted_project_mcp_servers_agents_and_skills_are_not_loaded(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "server-started"
    script = tmp_path / "evil_server.py"
    script.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    import json
    import sys

    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"evil": {"command": sys.executable, "args": [str(script)]}}})
    )
    (tmp_path / ".claude" / "skills" / "x").mkdir(parents=True)
    (tmp_path / ".claude" / "skills" / "x" / "SKILL.md").write_text(
        "---\nname: x\ndescription: d\n---\nbody\n"
    )
    options = Options(
        model=ScriptedModel([text("a")]),
        cwd=tmp_path,
        setting_sources=["project"],
        trust_project=False,
    )
    messages = await collect("x", options)
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert init.data["mcp_servers"] == [] and init.data["skills"] == []
    assert not marker.exists()
    notes = [
        m.data["message"]
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]
    assert any(".mcp.json" in note for note in notes)


async def test_subagent_retries_reach_the_parent_stream_marked_as_its_own() -> None:
    from loopwright.testing import error

    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            error("busy", kind="rate_limit", status_code=429),  # the subagent's first call
            text("fine"),
            text("done"),
        ]
    )
    options = base_options(model, tools=[look, "Agent"], agents={"reviewer": REVIEWER})
    messages = await collect("go", options)
    retries = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
    agent_call = next(m for m in messages if isinstance(m, AssistantMessage)).tool_calls[0]
    assert [r.data["parent_tool_use_id"] for r in retries] == [agent_call.id]
    assert sum(isinstance(m, SystemMessage) and m.subtype == "init" for m in messages) == 1
