"""Bad tool input becomes an error result the model can act on; the run goes on.

NUL bytes, arguments nested far too deep, floods of values and inputs that break a
permission check are all driven through the real loop with the scripted model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright import Options, query
from loopwright.hooks.runner import HookMatcher
from loopwright.mcp import create_sdk_mcp_server
from loopwright.messages import Message, ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.scripted import Step, raw_tool_call
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import tool
from loopwright.tools.input_checks import MAX_INPUT_DEPTH, MAX_INPUT_VALUES
from loopwright.types import PermissionResultAllow


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


async def collect(prompt: str, options: Options) -> list[Message]:
    return [m async for m in query(prompt, options)]


def tool_results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        block
        for message in messages
        if isinstance(message, UserMessage)
        for block in message.blocks
        if isinstance(block, ToolResultBlock)
    ]


async def run_one(step: Step, tmp_path: Path, **options: Any) -> tuple[ToolResultBlock, Message]:
    """One scripted call, then a closing text: the call's result and the final message."""
    options.setdefault("permission_mode", "bypassPermissions")
    options.setdefault("setting_sources", [])
    model = ScriptedModel([step, text("done")])
    messages = await collect("go", Options(model=model, cwd=tmp_path, **options))
    [result] = tool_results(messages)
    return result, messages[-1]


def assert_run_went_on(final: Message) -> None:
    assert isinstance(final, ResultMessage)
    assert final.subtype == "success", final.errors
    assert final.result == "done"


NUL_CALLS = {
    "Read": {"file_path": "/tmp/a\x00b"},
    "Write": {"file_path": "/tmp/a\x00b", "content": "x"},
    "Edit": {"file_path": "/tmp/a\x00b", "old_string": "x", "new_string": "y"},
    "Grep": {"pattern": "x", "path": "/tmp/a\x00b"},
    "Glob": {"pattern": "*.py", "path": "/tmp/a\x00b"},
    "Bash": {"command": "echo hi > /tmp/a\x00b"},
}


@pytest.mark.parametrize("name", sorted(NUL_CALLS))
@pytest.mark.parametrize(
    "permissions",
    [
        {"permission_mode": "bypassPermissions"},
        {"permission_mode": "default", "allowed_tools": ["Read", "Write", "Edit", "Bash(echo *)"]},
        {"permission_mode": "acceptEdits", "disallowed_tools": ["Read(./secrets/**)"]},
    ],
    ids=["bypass", "allow-rules", "deny-rules"],
)
async def test_nul_byte_in_a_path_or_command_is_an_error_result_and_the_run_goes_on(
    tmp_path: Path, name: str, permissions: dict[str, Any]
) -> None:
    result, final = await run_one(tool_call(name, **NUL_CALLS[name]), tmp_path, **permissions)
    assert result.is_error
    assert f"arguments for {name} contain a NUL byte" in result.text
    assert "remove it and send the call again" in result.text
    assert_run_went_on(final)


@pytest.mark.parametrize(
    ("name", "input"),
    [
        ("Read", {"file_path": "/tmp/a\ud800b"}),
        ("Grep", {"pattern": "x", "path": "/tmp/\udfff"}),
        ("Bash", {"command": "cat /tmp/\ud83d"}),
    ],
)
async def test_lone_surrogate_in_a_path_or_command_is_an_error_result(
    tmp_path: Path, name: str, input: dict[str, Any]
) -> None:
    result, final = await run_one(
        tool_call(name, **input),
        tmp_path,
        permission_mode="default",
        allowed_tools=["Read"],
        disallowed_tools=["Read(./secrets/**)"],
    )
    assert result.is_error and "a lone UTF-16 surrogate" in result.text
    assert "remove it and send the call again" in result.text
    assert_run_went_on(final)


async def test_a_file_name_that_is_not_utf8_can_still_be_named(tmp_path: Path) -> None:
    # Python spells the byte 0xff of such a name as U+DCFF; it must reach the tool.
    odd = tmp_path / "caf\udcff.txt"
    odd.write_bytes(b"inside\n")
    result, final = await run_one(tool_call("Read", file_path=str(odd)), tmp_path)
    assert not result.is_error and "inside" in result.text
    assert_run_went_on(final)


async def test_nul_byte_in_written_content_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out.txt"
    result, final = await run_one(
        tool_call("Write", file_path=str(target), content="a\x00b"), tmp_path
    )
    assert result.is_error and "at content" in result.text and "remove it" in result.text
    assert not target.exists()
    assert_run_went_on(final)


async def test_nul_byte_is_named_where_it_sits_in_a_nested_input(tmp_path: Path) -> None:
    todos = [{"content": "fine", "status": "pending"}, {"content": "b\x00d", "status": "pending"}]
    result, final = await run_one(tool_call("TodoWrite", todos=todos), tmp_path)
    assert result.is_error and "at todos/1/content" in result.text
    assert_says_what_to_do(result.text, "remove it and send the call again")
    assert_run_went_on(final)


@pytest.mark.parametrize("depth", [MAX_INPUT_DEPTH + 1, 200, 900])
async def test_deeply_nested_arguments_to_a_builtin_are_an_error_result(
    tmp_path: Path, depth: int
) -> None:
    step = tool_call("Read", file_path=str(tmp_path / "x"), extra=nested(depth))
    result, final = await run_one(step, tmp_path)
    assert result.is_error
    assert f"nested more than {MAX_INPUT_DEPTH} levels deep (under 'extra')" in result.text
    assert "send the arguments again as a flat JSON object" in result.text
    assert_run_went_on(final)


async def test_arguments_at_the_depth_limit_still_reach_the_tool(tmp_path: Path) -> None:
    seen: list[Any] = []

    @tool("keep", "Keeps a value.", {"type": "object"})
    def keep(args: dict[str, Any]) -> str:
        seen.append(args["v"])
        return "kept"

    step = tool_call("keep", v=nested(MAX_INPUT_DEPTH - 1))
    result, final = await run_one(step, tmp_path, tools=[keep])
    assert not result.is_error and result.text == "kept" and seen == [nested(MAX_INPUT_DEPTH - 1)]
    assert_run_went_on(final)


async def test_deeply_nested_arguments_to_a_custom_tool_never_reach_its_handler(
    tmp_path: Path,
) -> None:
    calls: list[Any] = []

    @tool("store", "Stores a value.", {"type": "object"})
    def store(args: dict[str, Any]) -> str:
        calls.append(args)
        return "stored"

    result, final = await run_one(tool_call("store", value=nested(300)), tmp_path, tools=[store])
    assert (
        result.is_error and "nested more than" in result.text and "flat JSON object" in result.text
    )
    assert calls == []
    assert_run_went_on(final)


async def test_deeply_nested_arguments_to_an_mcp_tool_are_an_error_result(tmp_path: Path) -> None:
    @tool
    def echo(value: Any) -> str:
        """Echo a value."""
        return repr(value)

    server = create_sdk_mcp_server("util", tools=[echo])
    step = tool_call("mcp__util__echo", value=nested(150))
    result, final = await run_one(step, tmp_path, tools=[], mcp_servers={"util": server})
    assert result.is_error and "arguments for mcp__util__echo are nested" in result.text
    assert_says_what_to_do(result.text, "send the arguments again as a flat JSON object")
    assert_run_went_on(final)


async def test_custom_tools_may_receive_nul_bytes_in_their_own_data(tmp_path: Path) -> None:
    @tool("count", "Counts characters.", {"type": "object"})
    def count(args: dict[str, Any]) -> str:
        return str(len(args["data"]))

    result, final = await run_one(tool_call("count", data="a\x00b"), tmp_path, tools=[count])
    assert not result.is_error and result.text == "3"
    assert_run_went_on(final)


async def test_a_flood_of_values_is_an_error_result(tmp_path: Path) -> None:
    step = tool_call("Bash", command="echo hi", extra=list(range(MAX_INPUT_VALUES + 1)))
    result, final = await run_one(step, tmp_path)
    assert result.is_error and "too large" in result.text and "split the work" in result.text
    assert_run_went_on(final)


async def test_undecodable_arguments_nested_past_the_limit_say_so(tmp_path: Path) -> None:
    deep_but_decodable = '{"file_path": "/x", "a": ' + "[" * 200 + "]" * 200 + "}"
    # Not a JSON object at the top, so the provider keeps the raw text.
    as_raw = deep_but_decodable[:-1]
    result, final = await run_one(raw_tool_call("Read", as_raw), tmp_path)
    assert (
        result.is_error and "nested more than" in result.text and "flat JSON object" in result.text
    )
    assert_run_went_on(final)


async def test_arguments_too_deep_to_decode_are_an_error_result(tmp_path: Path) -> None:
    raw = '{"file_path": "/x", "a": ' + "[" * 1000 + "]" * 1000 + "}"
    result, final = await run_one(raw_tool_call("Read", raw), tmp_path)
    assert result.is_error and "nested more than" in result.text
    assert_says_what_to_do(result.text, "Send the arguments again as a flat JSON object")
    assert_run_went_on(final)


async def test_a_lone_surrogate_sent_over_the_wire_does_not_end_the_run(tmp_path: Path) -> None:
    from loopwright.models.anthropic import AnthropicModel
    from loopwright.testing.fake_anthropic import FakeAnthropicServer

    script = [raw_tool_call("Read", '{"file_path": "/tmp/\\ud800x"}'), text("done")]
    with FakeAnthropicServer(script) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url=server.base_url)
        messages = await collect(
            "go",
            Options(
                model=model,
                cwd=tmp_path,
                permission_mode="bypassPermissions",
                setting_sources=[],
                max_retries=0,
            ),
        )
    [result] = tool_results(messages)
    assert result.is_error
    assert_says_what_to_do(result.text, "Send the arguments again as one JSON object")
    assert_run_went_on(messages[-1])


async def test_hook_rewriting_input_to_a_nul_path_is_denied_not_run(tmp_path: Path) -> None:
    async def rewrite(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"file_path": "/etc/pass\x00wd"},
            }
        }

    step = tool_call("Read", file_path=str(tmp_path / "x"))
    hooks = {"PreToolUse": [HookMatcher("Read", [rewrite])]}
    result, final = await run_one(step, tmp_path, permission_mode="default", hooks=hooks)
    assert result.is_error and "Read was denied" in result.text
    assert "send a corrected call" in result.text or "remove it" in result.text
    assert_run_went_on(final)


async def test_callback_rewriting_input_too_deep_is_denied_not_run(tmp_path: Path) -> None:
    def approve(name: str, input: dict[str, Any], ctx: Any) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input={"command": "echo hi", "x": nested(100)})

    result, final = await run_one(
        tool_call("Bash", command="touch made"),
        tmp_path,
        permission_mode="default",
        can_use_tool=approve,
    )
    assert result.is_error and "rewritten by a hook or can_use_tool" in result.text
    assert "flat JSON object" in result.text
    assert not (tmp_path / "made").exists()
    assert_run_went_on(final)


async def test_hook_rewriting_input_off_schema_is_denied_not_run(tmp_path: Path) -> None:
    async def rewrite(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        updated = {"file_path": ["not", "a", "string"]}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}

    step = tool_call("Read", file_path=str(tmp_path / "x"))
    hooks = {"PreToolUse": [HookMatcher("Read", [rewrite])]}
    result, final = await run_one(step, tmp_path, hooks=hooks)
    assert result.is_error and "invalid arguments for Read at file_path" in result.text
    assert "rewritten by a hook or can_use_tool" in result.text
    assert_run_went_on(final)


async def test_a_permission_check_that_raises_denies_the_call(tmp_path: Path) -> None:
    # The model's own call is clean; a hook hands the deny-rule check a path that makes
    # path resolution raise. The check fails closed: denied, with the reason.
    async def rewrite(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        updated = {"file_path": "/etc/pass\x00wd"}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}

    step = tool_call("Read", file_path=str(tmp_path / "x"))
    hooks = {"PreToolUse": [HookMatcher("Read", [rewrite])]}
    result, final = await run_one(
        step,
        tmp_path,
        permission_mode="default",
        allowed_tools=["Read"],
        disallowed_tools=["Read(./secrets/**)"],
        hooks=hooks,
    )
    assert result.is_error and "Permission to use Read was denied" in result.text
    assert "the permission check failed on this input" in result.text
    assert "was not run" in result.text and "send a corrected call" in result.text
    assert isinstance(final, ResultMessage) and final.permission_denials
    assert_run_went_on(final)


async def test_a_post_tool_hook_output_that_cannot_be_used_still_reports_the_tool_ran(
    tmp_path: Path,
) -> None:
    circular: dict[str, Any] = {}
    circular["self"] = circular

    async def replace(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        specific = {"hookEventName": "PostToolUse", "updatedToolOutput": circular}
        return {"hookSpecificOutput": specific}

    target = tmp_path / "made.txt"
    step = tool_call("Write", file_path=str(target), content="hello")
    hooks = {"PostToolUse": [HookMatcher("Write", [replace])]}
    result, final = await run_one(step, tmp_path, hooks=hooks)
    assert target.read_text() == "hello"
    assert result.is_error and "Write ran, but processing its result afterwards" in result.text
    assert_says_what_to_do(result.text, "do not run it again")
    assert_run_went_on(final)
