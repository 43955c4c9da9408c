"""The claude-agent-sdk layer, driven through the real loop by ScriptedModel."""

import asyncio
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from loopwright.compat._claude_options import to_options
from loopwright.compat.claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ClaudeSDKError,
    CLIConnectionError,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    TextBlock,
    ToolAnnotations,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)
from loopwright.errors import ResultError
from loopwright.messages import Message
from loopwright.testing import ScriptedModel, text, tool_call, tool_calls


@tool("add", "Add two numbers", {"a": float, "b": float})
async def add(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"Sum: {args['a'] + args['b']}"}]}


def calculator_options(model: ScriptedModel, **changes: Any) -> ClaudeAgentOptions:
    server = create_sdk_mcp_server(name="calc", version="2.0.0", tools=[add])
    settings: dict[str, Any] = {
        "model": model,
        "mcp_servers": {"calc": server},
        "allowed_tools": ["mcp__calc__add"],
        "setting_sources": [],
    }
    return ClaudeAgentOptions(**(settings | changes))


def tool_results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        block
        for m in messages
        if isinstance(m, UserMessage) and not isinstance(m.content, str)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]


async def collect(prompt: Any, options: ClaudeAgentOptions) -> list[Message]:
    return [m async for m in query(prompt=prompt, options=options)]


# --------------------------------------------------------------------------- @tool


def test_tool_turns_a_type_mapping_into_a_json_schema_with_every_argument_required() -> None:
    assert add.name == "add"
    assert add.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    }


def test_tool_keeps_an_explicit_json_schema_as_given() -> None:
    schema = {"type": "object", "properties": {"type": {"type": "string"}}, "required": []}

    @tool("kind", "Echo a kind", schema)
    async def kind(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": []}

    assert kind.input_schema == schema


def test_tool_treats_a_field_called_type_with_a_python_type_as_a_mapping() -> None:
    @tool("tag", "Tag something", {"type": str})
    async def tag(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": []}

    assert tag.input_schema["properties"] == {"type": {"type": "string"}}


def test_read_only_annotation_marks_the_tool_safe_to_run_in_parallel() -> None:
    @tool("look", "Look", {"q": str}, annotations=ToolAnnotations(readOnlyHint=True))
    async def look(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": []}

    assert look.read_only


# --------------------------------------------------------------------------- query


async def test_query_runs_an_sdk_server_tool_and_returns_its_content_to_the_model() -> None:
    model = ScriptedModel([tool_call("mcp__calc__add", a=2, b=3), text("5")])
    messages = await collect("2+3?", calculator_options(model))

    assert [r.text for r in tool_results(messages)] == ["Sum: 5"]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.result, result.num_turns) == ("success", "5", 1)
    assert isinstance(result.session_id, str) and result.total_cost_usd is not None


async def test_query_raises_after_yielding_an_error_result() -> None:
    model = ScriptedModel([tool_call("mcp__calc__add", a=1, b=1)] * 2)
    seen: list[Message] = []
    with pytest.raises(ResultError) as caught:
        async for message in query(prompt="loop", options=calculator_options(model, max_turns=1)):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage) and seen[-1].subtype == "error_max_turns"
    assert caught.value.result is seen[-1]
    assert isinstance(caught.value, ClaudeSDKError)


async def test_query_accepts_streaming_input_in_the_reference_dict_shape() -> None:
    model = ScriptedModel([text("first"), text("second")])

    async def prompts() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "user", "message": {"role": "user", "content": "one"}}
        yield {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": "two"}]},
        }

    messages = await collect(prompts(), calculator_options(model))

    results = [m.result for m in messages if isinstance(m, ResultMessage)]
    assert results == ["first", "second"]
    second_prompt = model.requests[1].messages[-1]
    assert isinstance(second_prompt, UserMessage) and second_prompt.content == [TextBlock("two")]


async def test_system_prompt_string_and_preset_append_reach_the_model() -> None:
    model = ScriptedModel([text("ok"), text("ok")])
    await collect("hi", calculator_options(model, system_prompt="You are terse."))
    preset = {"type": "preset", "preset": "claude_code", "append": "Always answer in French."}
    await collect("hi", calculator_options(model, system_prompt=preset))

    assert model.requests[0].system.startswith("You are terse.")
    assert model.requests[1].system.endswith("Always answer in French.")
    assert "Working directory" in model.requests[1].system  # loopwright's own agent prompt


async def test_can_use_tool_denial_reaches_the_model_as_an_error_result() -> None:
    asked: list[tuple[str, dict[str, Any], ToolPermissionContext]] = []

    async def deny_all(
        name: str, input_data: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((name, input_data, context))
        return PermissionResultDeny(message="no adding today")

    model = ScriptedModel([tool_call("mcp__calc__add", a=1, b=2), text("fine")])
    options = calculator_options(model, allowed_tools=[], can_use_tool=deny_all)
    messages = await collect("add", options)

    assert [a[0] for a in asked] == ["mcp__calc__add"]
    [result_block] = tool_results(messages)
    assert result_block.is_error and "no adding today" in result_block.text
    final = messages[-1]
    assert isinstance(final, ResultMessage) and len(final.permission_denials) == 1


async def test_pre_tool_use_hook_registered_with_hook_matcher_can_block_a_call() -> None:
    async def block_add(
        input_data: dict[str, Any], tool_use_id: str | None, context: Any
    ) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "blocked by hook",
            }
        }

    model = ScriptedModel([tool_call("mcp__calc__add", a=1, b=2), text("ok")])
    hooks = {"PreToolUse": [HookMatcher(matcher="mcp__calc__add", hooks=[block_add])]}
    messages = await collect("add", calculator_options(model, hooks=hooks))

    [result_block] = tool_results(messages)
    assert result_block.is_error and "blocked by hook" in result_block.text


# --------------------------------------------------------------------------- options


def test_agent_definition_takes_the_reference_camel_case_fields() -> None:
    definition = AgentDefinition(
        description="Reviews code",
        prompt="Review it.",
        tools=["Read", "Grep", "Bash"],
        disallowedTools=["Bash"],
        maxTurns=3,
        permissionMode="plan",
    )
    options = to_options(ClaudeAgentOptions(agents={"reviewer": definition}), raise_on_error=True)

    assert options.agents is not None
    native = options.agents["reviewer"]
    assert (native.tools, native.max_turns, native.permission_mode) == (["Read", "Grep"], 3, "plan")


def test_options_translate_limits_thinking_and_session_fields() -> None:
    options = to_options(
        ClaudeAgentOptions(
            max_turns=4,
            max_budget_usd=0.5,
            max_thinking_tokens=2048,
            effort="high",
            task_budget={"total": 9000},
            resume="abc",
            fork_session=True,
            resume_session_at="uuid-1",
            tools=["Read", "Task"],
        ),
        raise_on_error=True,
    )

    assert (options.max_turns, options.max_budget_usd, options.effort) == (4, 0.5, "high")
    assert options.thinking == {"type": "enabled", "budget_tokens": 2048}
    assert (options.task_budget, options.resume, options.fork_session) == (9000, "abc", True)
    assert options.resume_at == "uuid-1"
    assert options.tools == ["Read", "Agent"]
    assert options.raise_on_error


def test_options_for_missing_features_warn_instead_of_failing() -> None:
    with pytest.warns(UserWarning, match="betas"):
        to_options(ClaudeAgentOptions(betas=["context-1m-2025-08-07"]), raise_on_error=True)


def test_file_checkpointing_reaches_the_native_options() -> None:
    options = to_options(ClaudeAgentOptions(enable_file_checkpointing=True), raise_on_error=True)
    assert options.enable_file_checkpointing


def test_cli_transport_options_are_accepted_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_options(
            ClaudeAgentOptions(cli_path="/opt/claude", max_buffer_size=1), raise_on_error=True
        )


def test_loopwright_model_replaces_a_model_string_but_not_a_model_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOOPWRIGHT_MODEL", "scripted:/tmp/x.yaml")
    scripted = ScriptedModel([])

    named = to_options(
        ClaudeAgentOptions(model="sonnet", fallback_model="opus"), raise_on_error=True
    )
    given = to_options(ClaudeAgentOptions(model=scripted), raise_on_error=True)

    assert (named.model, named.fallback_model) == ("scripted:/tmp/x.yaml", None)
    assert given.model is scripted


async def test_model_comes_from_loopwright_model_when_the_code_names_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- text: scripted hello\n")
    monkeypatch.setenv("LOOPWRIGHT_MODEL", f"scripted:{script}")

    messages = [m async for m in query(prompt="hi", options=ClaudeAgentOptions(setting_sources=[]))]

    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.result == "scripted hello"


# --------------------------------------------------------------------------- client


async def test_client_keeps_the_conversation_and_does_not_raise_on_error_results() -> None:
    model = ScriptedModel([text("Paris"), tool_call("mcp__calc__add", a=1, b=1)])
    options = calculator_options(model, max_turns=0)

    async with ClaudeSDKClient(options=options) as client:
        await client.query("Capital of France?")
        first = [m async for m in client.receive_response()]
        await client.query("Now add")
        second = [m async for m in client.receive_response()]

    assert isinstance(first[-1], ResultMessage) and first[-1].result == "Paris"
    assert isinstance(second[-1], ResultMessage) and second[-1].subtype == "error_max_turns"
    assert len(model.requests[1].messages) == 3  # question, answer, follow-up


async def test_client_connect_with_a_prompt_starts_answering_it() -> None:
    model = ScriptedModel([text("hello")])
    client = ClaudeSDKClient(options=calculator_options(model))
    await client.connect("hi")
    messages = [m async for m in client.receive_response()]
    info = await client.get_server_info()
    await client.disconnect()

    assert any(isinstance(m, AssistantMessage) for m in messages)
    assert info is not None and info["session_id"] == messages[-1].session_id  # type: ignore[union-attr]


async def test_client_answers_again_after_disconnect_and_connect() -> None:
    model = ScriptedModel([text("first"), text("second")])
    client = ClaudeSDKClient(options=calculator_options(model))
    await client.connect()
    await client.query("one")
    first = [m async for m in client.receive_response()]
    await client.disconnect()
    await client.disconnect()  # a second disconnect is harmless

    await client.connect()
    await client.query("two")
    second = await asyncio.wait_for(_collect(client.receive_response()), timeout=10)
    await client.disconnect()

    assert isinstance(first[-1], ResultMessage) and first[-1].result == "first"
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "second"


async def test_client_used_before_connect_or_after_disconnect_raises_cli_connection_error() -> None:
    client = ClaudeSDKClient(options=calculator_options(ScriptedModel([])))
    with pytest.raises(CLIConnectionError, match=r"await client\.connect\(\)"):
        await client.query("too early")
    with pytest.raises(CLIConnectionError, match=r"await client\.connect\(\)"):
        await client.get_server_info()
    await client.connect()
    await client.disconnect()
    with pytest.raises(CLIConnectionError, match="not connected"):
        await client.query("too late")
    with pytest.raises(CLIConnectionError, match=r"await client\.connect\(\)"):
        await client.interrupt()


async def _collect(stream: AsyncIterator[Message]) -> list[Message]:
    return [message async for message in stream]


async def test_client_interrupt_ends_the_running_response() -> None:
    started = asyncio.Event()

    @tool("wait", "Wait a long time", {"seconds": float})
    async def wait(args: dict[str, Any]) -> dict[str, Any]:
        started.set()
        await asyncio.sleep(args["seconds"])
        return {"content": [{"type": "text", "text": "waited"}]}

    server = create_sdk_mcp_server("slow", tools=[wait])
    model = ScriptedModel([tool_call("mcp__slow__wait", seconds=30)])
    options = ClaudeAgentOptions(
        model=model,
        mcp_servers={"slow": server},
        permission_mode="bypassPermissions",
        setting_sources=[],
    )

    async with ClaudeSDKClient(options=options) as client:
        await client.query("wait")
        await asyncio.wait_for(started.wait(), 5)
        await client.interrupt()
        messages = [m async for m in client.receive_response()]

    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.subtype == "interrupted"


async def test_client_set_permission_mode_and_set_model_apply_to_the_next_turn() -> None:
    first = ScriptedModel([tool_call("mcp__calc__add", a=1, b=2), text("denied, fine")])
    second = ScriptedModel([tool_call("mcp__calc__add", a=1, b=2), text("3")])
    options = calculator_options(first, allowed_tools=[])

    async with ClaudeSDKClient(options=options) as client:
        await client.query("add")
        denied = [m async for m in client.receive_response()]
        await client.set_permission_mode("bypassPermissions")
        await client.set_model(second)
        await client.query("add again")
        allowed = [m async for m in client.receive_response()]

    assert tool_results(denied)[0].is_error
    assert tool_results(allowed)[0].text == "Sum: 3"
    assert len(second.requests) == 2


async def test_several_tool_calls_of_one_response_all_get_results() -> None:
    model = ScriptedModel(
        [
            tool_calls(
                [("mcp__calc__add", {"a": 1, "b": 2}), ("mcp__calc__add", {"a": 3, "b": 4})]
            ),
            text("3 and 7"),
        ]
    )
    messages = await collect("two sums", calculator_options(model))

    assert [r.text for r in tool_results(messages)] == ["Sum: 3", "Sum: 7"]


async def test_can_use_tool_can_rewrite_the_input_it_allows() -> None:
    async def double_a(
        name: str, input_data: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input={**input_data, "a": input_data["a"] * 2})

    model = ScriptedModel([tool_call("mcp__calc__add", a=5, b=1), text("11")])
    options = calculator_options(model, allowed_tools=[], can_use_tool=double_a)
    messages = await collect("add", options)

    assert [r.text for r in tool_results(messages)] == ["Sum: 11"]


def test_types_submodule_offers_the_names_the_reference_imports_from_it() -> None:
    from loopwright.compat.claude_agent_sdk import types

    assert types.PermissionResultAllow is PermissionResultAllow
    assert types.ToolPermissionContext is ToolPermissionContext
    assert types.HookMatcher is HookMatcher


async def test_partial_messages_arrive_as_anthropic_content_block_events() -> None:
    from loopwright.compat.claude_agent_sdk.types import StreamEvent

    model = ScriptedModel([tool_call("mcp__calc__add", a=1, b=2), text("The sum is 3.")])
    options = calculator_options(model, include_partial_messages=True)
    printed: list[str] = []
    kinds: list[str] = []
    tool_json: list[str] = []
    async for message in query(prompt="add", options=options):
        if isinstance(message, StreamEvent):
            event = message.event
            kinds.append(event["type"])
            if event.get("type") == "content_block_delta":
                delta = event.get("delta", {})
                if delta.get("type") == "text_delta":
                    printed.append(delta.get("text", ""))
                if delta.get("type") == "input_json_delta":
                    tool_json.append(delta["partial_json"])
            if event.get("type") == "content_block_start":
                assert event["content_block"]["type"] in ("tool_use", "text")

    assert "".join(printed) == "The sum is 3."
    assert "".join(tool_json) == '{"a": 1, "b": 2}'
    # Two responses: each message_start, its blocks, message_delta, message_stop.
    assert kinds[0] == "message_start" and kinds[1] == "content_block_start"
    assert kinds.count("message_start") == kinds.count("message_stop") == 2
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 2
    first_stop = kinds.index("message_stop")
    assert kinds[first_stop - 2 : first_stop + 1] == [
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_tool_without_arguments_gets_an_empty_object_schema() -> None:
    @tool("ping", "Ping", {})
    async def ping(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "pong"}]}

    assert ping.input_schema == {"type": "object", "properties": {}}


async def test_a_string_for_disallowed_tools_is_refused_not_split_into_characters() -> None:
    from loopwright.options.validation import OptionsError

    with pytest.raises(OptionsError) as error:
        async for _ in query(prompt="hi", options=ClaudeAgentOptions(disallowed_tools="Bash")):
            pass
    assert "write disallowed_tools=['Bash']" in str(error.value)
