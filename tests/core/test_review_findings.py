"""Bugs found in review of the loop's integration glue, each shown through the real loop.

Every test is a strict xfail: it fails today and will start passing when the bug is fixed.
"""

import asyncio
from pathlib import Path
from typing import Any

from loopwright import AgentDefinition, Client, Options, query, run, tool
from loopwright.hooks.runner import HookMatcher
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Message,
    ResultMessage,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ModelRequest
from loopwright.testing import (
    FunctionModel,
    ScriptedModel,
    raw_tool_call,
    text,
    tool_call,
    tool_calls,
)
from loopwright.types import PermissionResultAllow, PermissionResultDeny

ran: list[str] = []


@tool(read_only=True)
def look(path: str) -> str:
    """Look at a file."""
    ran.append(f"look {path}")
    return f"contents of {path}"


@tool
def touch(path: str) -> str:
    """Create a file."""
    ran.append(f"touch {path}")
    return "touched"


def base_options(model: Any, **extra: Any) -> Options:
    extra.setdefault("permission_mode", "bypassPermissions")
    extra.setdefault("tools", [look, touch])
    return Options(model=model, setting_sources=[], persist_session=False, **extra)


async def collect(prompt: str, options: Options) -> list[Message]:
    return [m async for m in query(prompt, options)]


def unanswered_calls(history: list[ConversationMessage]) -> list[str]:
    """tool_use ids in ``history`` that no tool_result answers."""
    answered = {
        b.tool_use_id
        for m in history
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    }
    return [
        b.id
        for m in history
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolUseBlock) and b.id not in answered
    ]


# --------------------------------------------------------------------------- pairing


async def test_tool_call_cut_twice_by_max_tokens_still_gets_a_result() -> None:
    cut = raw_tool_call("look", '{"path": "a.').with_(stop_reason="max_tokens")
    model = ScriptedModel([cut, cut, text("second answer")])
    async with Client(base_options(model)) as client:
        await client.query("one")
        first = [m async for m in client.receive_response()]
        await client.query("two")
        [m async for m in client.receive_response()]
    assert isinstance(first[-1], ResultMessage) and first[-1].is_error
    # The history the model gets for the next prompt must pair every tool_use.
    assert unanswered_calls(model.requests[2].messages) == []


async def test_calls_skipped_after_an_interrupting_denial_say_why() -> None:
    def decide(name: str, input: dict[str, Any], ctx: Any) -> Any:
        if input["path"] == "b":
            return PermissionResultDeny("no b", interrupt=True)
        return PermissionResultAllow()

    model = ScriptedModel(
        [tool_calls([("touch", {"path": "a"}), ("touch", {"path": "b"}), ("touch", {"path": "c"})])]
    )
    messages = await collect(
        "go", base_options(model, permission_mode="default", can_use_tool=decide)
    )
    results = [
        b
        for m in messages
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    skipped = results[2]
    assert skipped.is_error
    assert "None" not in skipped.text


# --------------------------------------------------------------------------- hooks


async def test_post_tool_use_continue_false_stops_the_run() -> None:
    async def halt(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"continue": False, "stopReason": "enough"}

    model = FunctionModel(lambda request: tool_call("look", path="a"))
    result = await run(
        "go",
        base_options(model, hooks={"PostToolUse": [HookMatcher(None, [halt])]}, max_turns=3),
    )
    assert len(model.requests) == 1
    assert result.subtype != "error_max_turns"


async def test_subagent_does_not_fire_session_start_or_user_prompt_submit() -> None:
    events: list[str] = []

    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        events.append(input["hook_event_name"])
        return {}

    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            text("fine"),
            text("done"),
        ]
    )
    hooks = {event: [HookMatcher(None, [note])] for event in ("SessionStart", "UserPromptSubmit")}
    await run(
        "go",
        base_options(
            model,
            tools=[look, "Agent"],
            agents={"reviewer": AgentDefinition(description="r", prompt="Review.")},
            hooks=hooks,
        ),
    )
    assert events == ["SessionStart", "UserPromptSubmit"]


# --------------------------------------------------------------------------- numbers


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


# --------------------------------------------------------------------------- Client races


async def test_interrupt_right_after_query_stops_that_prompt() -> None:
    ran.clear()
    model = ScriptedModel([tool_call("touch", path="x"), text("done")])
    async with Client(base_options(model)) as client:
        await client.query("go")
        await client.interrupt()
        messages = [m async for m in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert ran == []


async def test_disconnect_does_not_run_queued_prompts() -> None:
    ran.clear()
    model = ScriptedModel([tool_call("touch", path="x"), text("done")])
    async with Client(base_options(model)) as client:
        await client.query("go")
    assert ran == []
    assert model.requests == []


@tool(read_only=True)
def blob() -> str:
    """Return a medium-sized output."""
    return " ".join(f"line{i}" for i in range(300))


async def test_interrupt_during_compaction_is_honoured() -> None:
    ran.clear()
    compacting = asyncio.Event()
    release = asyncio.Event()

    async def answer(request: ModelRequest) -> Any:
        if "working memory" in request.system:  # the summariser
            compacting.set()
            await release.wait()
            return text("summary of the work so far")
        if compacting.is_set():
            return tool_call("touch", path="after-interrupt")
        # The provider reports a context that grows past the threshold after a few turns.
        return tool_call("blob").with_(usage=Usage(800 * len(request.messages), 5))

    model = FunctionModel(answer)
    options = base_options(model, tools=[blob, touch], context_window=4000, max_turns=30)
    async with Client(options) as client:
        await client.query("go")

        async def interrupt_when_compacting() -> None:
            await compacting.wait()
            await client.interrupt()
            release.set()

        helper = asyncio.create_task(interrupt_when_compacting())
        messages = [m async for m in client.receive_response()]
        helper.cancel()
    assert compacting.is_set()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert ran == []


# --------------------------------------------------------------------------- leaks


class ClosableModel(FunctionModel):
    def __init__(self, name: str) -> None:
        super().__init__(lambda request: text(f"from {name}"), name=name)
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


async def test_set_model_leaves_models_the_user_built_open() -> None:
    # A Model object belongs to the user (it may serve other sessions); only providers
    # loopwright made from model strings are closed with the session (tests/models).
    first, second = ClosableModel("first"), ClosableModel("second")
    async with Client(base_options(first)) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        await client.set_model(second)
        await client.query("two")
        [m async for m in client.receive_response()]
    assert not second.closed
    assert not first.closed


# --------------------------------------------------------------------------- escapes


async def test_bad_thinking_option_ends_with_an_error_result() -> None:
    model = ScriptedModel([text("hi")])
    messages: list[Message] = []
    async for message in query("go", base_options(model, thinking={"kind": "enabled"})):
        messages.append(message)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error


async def test_hook_inputs_carry_the_transcript_path() -> None:
    seen: list[dict[str, Any]] = []

    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append(dict(input))
        return {}

    model = ScriptedModel([tool_call("look", path="a"), text("done")])
    options = Options(
        model=model,
        tools=[look],
        permission_mode="bypassPermissions",
        setting_sources=[],
        hooks={"PreToolUse": [HookMatcher(None, [note])], "Stop": [HookMatcher(None, [note])]},
    )
    await run("go", options)
    assert [i["hook_event_name"] for i in seen] == ["PreToolUse", "Stop"]
    assert all(Path(i.get("transcript_path", "")).is_file() for i in seen)


async def test_store_failure_ends_with_an_error_result(tmp_path: Path) -> None:
    from loopwright.sessions.jsonl import JSONLStore

    class FailingStore(JSONLStore):
        writes = 0

        async def append(self, session_id: str, entry: Any) -> None:
            self.writes += 1
            if self.writes == 3:  # a message recorded mid-run
                raise OSError(28, "No space left on device")
            await super().append(session_id, entry)

    model = ScriptedModel([text("hi")])
    options = Options(
        model=model,
        tools=[],
        permission_mode="bypassPermissions",
        setting_sources=[],
        session_store=FailingStore(tmp_path, cwd=tmp_path),
    )
    messages = [m async for m in query("go", options)]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error


# --------------------------------------------------------------------------- subagents

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


async def test_interrupting_denial_reports_its_own_reason_not_a_stale_one() -> None:
    calls = 0

    async def stop_once(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"continue": False, "stopReason": "stopped by the first hook"}
        return {}

    def deny(name: str, input: dict[str, Any], ctx: Any) -> Any:
        return PermissionResultDeny("not now", interrupt=True)

    model = ScriptedModel([tool_call("touch", path="a"), tool_call("touch", path="b")])
    options = base_options(
        model,
        permission_mode="default",
        can_use_tool=deny,
        hooks={"PreToolUse": [HookMatcher(None, [stop_once])]},
    )
    async with Client(options) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        await client.query("two")
        second = [m async for m in client.receive_response()]
    result = second[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert "stopped by the first hook" not in " ".join(result.errors)


async def test_model_crash_during_compaction_ends_with_an_error_result() -> None:
    def answer(request: ModelRequest) -> Any:
        if "working memory" in request.system:  # the summariser
            raise RuntimeError("provider bug")
        return tool_call("blob").with_(usage=Usage(800 * len(request.messages), 5))

    model = FunctionModel(answer)
    options = base_options(model, tools=[blob], context_window=4000, max_turns=30)
    messages: list[Message] = []
    async for message in query("go", options):
        messages.append(message)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error
