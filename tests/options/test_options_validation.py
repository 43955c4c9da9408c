"""Options and AgentDefinition refuse fields that cannot work, naming the field and the fix.

A single string where a list is expected is refused (never read as a one-element list, and
never one character at a time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright import Client, Options
from loopwright.errors import ConfigurationError
from loopwright.hooks.runner import HookMatcher
from loopwright.messages import ResultMessage, SystemMessage
from loopwright.options import AgentDefinition
from loopwright.options.validation import OptionsError
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options, collect, tool_results


def refused(**fields: Any) -> str:
    with pytest.raises(OptionsError) as error:
        Options(**fields)
    assert isinstance(error.value, TypeError) and isinstance(error.value, ConfigurationError)
    return str(error.value)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("disallowed_tools", "Bash"),
        ("allowed_tools", "Bash(npm test *)"),
        ("skills", "review"),
        ("setting_sources", "project"),
    ],
)
def test_a_string_where_a_list_of_rules_or_names_belongs_is_refused(field: str, value: str) -> None:
    message = refused(**{field: value})
    assert f"{field} must be a list" in message
    assert "read one character at a time" in message
    assert f"write {field}=[{value!r}]" in message


@pytest.mark.parametrize(("field", "value"), [("tools", "Read"), ("add_dirs", "/srv/data")])
def test_a_string_for_tools_or_directories_is_refused_with_the_list_form(
    field: str, value: str
) -> None:
    message = refused(**{field: value})
    assert field in message and "[" in message.split("write", 1)[1]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("disallowed_tools", ["Bash", 3], "must hold non-empty strings"),
        ("allowed_tools", [""], "must hold non-empty strings"),
        ("setting_sources", ["project", "global"], "'user', 'project', 'local'"),
        ("tools", ["Read", object()], "neither a tool name nor a Tool"),
        ("allowed_tools", {"Read": True}, "must be a list of rules"),
    ],
)
def test_lists_with_wrong_items_are_refused(field: str, value: Any, expected: str) -> None:
    message = refused(**{field: value})
    assert field in message and expected in message


@pytest.mark.parametrize("mode", ["yolo", "bypass", "Default", "", 1])
def test_unknown_permission_modes_are_refused_listing_the_valid_ones(mode: Any) -> None:
    message = refused(permission_mode=mode)
    assert f"permission_mode={mode!r} is not a permission mode" in message
    assert "'default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'" in message


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("max_turns", -1, "at least 0"),
        ("max_turns", 1.5, "whole number"),
        ("max_turns", True, "whole number"),
        ("max_tokens", 0, "at least 1"),
        ("task_budget", -5, "at least 1"),
        ("max_retries", -1, "at least 0"),
        ("context_window", 0, "at least 1"),
        ("max_budget_usd", -0.01, "must not be negative"),
        ("max_budget_usd", "5", "a cost in USD"),
        ("max_budget_usd", float("nan"), "a cost in USD"),
        ("tool_timeout_seconds", 0, "above 0"),
        ("mcp_connect_timeout", -3, "must not be negative"),
        ("compaction_threshold", 1.5, "at most 1"),
        ("compaction_threshold", 0, "above 0"),
        ("tool_search", 2.0, "between 0 and 1"),
    ],
)
def test_numbers_out_of_range_or_of_the_wrong_type_are_refused(
    field: str, value: Any, expected: str
) -> None:
    message = refused(**{field: value})
    assert field in message and expected in message


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("fork_session", "yes", "True or False"),
        ("trust_project", 1, "True or False"),
        ("env", {"TOKEN": 1}, "env['TOKEN'] must be a str"),
        ("env", ["A=1"], "env must be a dict"),
        ("can_use_tool", "allow", "must be a function"),
        ("resume", 42, "must be a string or None"),
        ("cwd", 3, "must be a path"),
        ("effort", "extreme", "low, medium, high, xhigh, max"),
        ("agents", {"reviewer": {"description": "d", "prompt": "p"}}, "AgentDefinition"),
        ("hooks", {"PreToolUze": []}, "unknown event 'PreToolUze'; use one of PreToolUse"),
        ("hooks", {"PreToolUse": HookMatcher("Bash")}, "must be a list of HookMatcher"),
        ("hooks", {"PreToolUse": [print]}, "wrap callbacks in one"),
    ],
)
def test_fields_of_the_wrong_kind_are_refused(field: str, value: Any, expected: str) -> None:
    message = refused(**{field: value})
    assert field in message and expected in message


def test_valid_edges_are_accepted() -> None:
    Options(max_turns=0, max_budget_usd=0, skills="all", setting_sources=[], tools=[])
    Options(allowed_tools=("Read",), disallowed_tools=["Bash"], add_dirs=[Path("/tmp")])


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"permission_mode": "yolo"}, "AgentDefinition.permission_mode='yolo'"),
        ({"tools": "Read"}, "write AgentDefinition.tools=['Read']"),
        ({"max_turns": -2}, "AgentDefinition.max_turns=-2 must be at least 0"),
        ({"description": None}, "AgentDefinition.description must be a string"),
    ],
)
def test_agent_definitions_refuse_wrong_fields(fields: dict[str, Any], expected: str) -> None:
    base: dict[str, Any] = {"description": "reviews", "prompt": "review it"}
    with pytest.raises(OptionsError) as error:
        AgentDefinition(**{**base, **fields})
    assert expected in str(error.value)


async def test_a_bare_name_in_disallowed_tools_removes_the_tool_from_the_run(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([tool_call("Bash", command="touch made"), text("done")])
    messages = await collect(
        "go",
        base_options(model, cwd=tmp_path, tools=["Bash", "Read"], disallowed_tools=["Bash"]),
    )
    init = messages[0]
    assert isinstance(init, SystemMessage) and "Bash" not in init.data["tools"]
    [result] = tool_results(messages)
    assert result.is_error and not (tmp_path / "made").exists()
    assert_says_what_to_do(result.text, "Available tools: Read")


async def test_set_permission_mode_refuses_an_unknown_mode_and_keeps_the_current_one(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([tool_call("Bash", command="touch made"), text("done")])
    options = Options(model=model, cwd=tmp_path, tools=["Bash"], setting_sources=[])
    async with Client(options) as client:
        with pytest.raises(OptionsError) as error:
            await client.set_permission_mode("yolo")  # type: ignore[arg-type]
        assert "set_permission_mode(mode)='yolo' is not a permission mode" in str(error.value)
        assert "'bypassPermissions'" in str(error.value)
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    [denied] = tool_results(messages)
    assert denied.is_error and not (tmp_path / "made").exists()  # still the default mode
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
