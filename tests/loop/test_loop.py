"""The loop driven end to end through the scripted model."""

import asyncio
import time
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright import Options, query, run, tool
from loopwright.cost import ModelPrice, register_price
from loopwright.errors import ResultError
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    Usage,
    UserMessage,
)
from loopwright.testing import (
    FunctionModel,
    ScriptedModel,
    error,
    raw_tool_call,
    text,
    tool_call,
    tool_calls,
)
from support import base_options, collect, tool_results


@tool(read_only=True)
def echo(value: str) -> str:
    """Return the value."""
    return value


async def test_stream_starts_with_init_and_ends_with_result() -> None:
    model = ScriptedModel([tool_call("echo", value="hi"), text("done")])
    messages = await collect("go", base_options(model, tools=[echo]))
    assert isinstance(messages[0], SystemMessage) and messages[0].subtype == "init"
    assert messages[0].data["tools"] == ["echo"]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.result, result.num_turns) == ("success", "done", 1)
    assert result.usage == Usage(20, 10)
    assert result.total_cost_usd == 0.0
    assert [type(m).__name__ for m in messages] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "ResultMessage",
    ]
    model.assert_complete()


async def test_the_model_sees_tool_results_in_its_next_request() -> None:
    model = ScriptedModel([tool_call("echo", value="ping"), text("done")])
    await collect("go", base_options(model, tools=[echo]))
    last = model.requests[1].messages[-1]
    assert isinstance(last, UserMessage)
    assert tool_results([last])[0].content == "ping"


async def test_max_turns_counts_only_tool_use_turns() -> None:
    model = ScriptedModel([tool_call("echo", value="1"), tool_call("echo", value="2"), text("ok")])
    result = await run("go", base_options(model, tools=[echo], max_turns=2))
    assert (result.subtype, result.num_turns) == ("success", 2)


async def test_max_turns_ends_with_error_and_answers_the_pending_call() -> None:
    model = ScriptedModel([tool_call("echo", value="1"), tool_call("echo", value="2")])
    messages = await collect("go", base_options(model, tools=[echo], max_turns=1))
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error, result.num_turns) == ("error_max_turns", True, 1)
    closing = tool_results(messages)[-1]
    assert closing.is_error and "maximum number of turns" in closing.text
    model.assert_complete()


async def test_budget_limit_ends_the_run_with_partial_transcript() -> None:
    register_price("priced-test-model", ModelPrice(1_000_000.0, 0.0, 0.0, 0.0))
    model = ScriptedModel([tool_call("echo", value="1"), text("never")], name="priced-test-model")
    messages = await collect(
        "go",
        base_options(model, tools=[echo], max_budget_usd=1.0),
    )
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "error_max_budget_usd"
    assert result.total_cost_usd == pytest.approx(10.0)  # 10 input tokens at $1 each
    assert any(isinstance(m, AssistantMessage) for m in messages)
    assert tool_results(messages)[-1].is_error  # the call that will never run is answered


async def test_unknown_model_price_is_none_not_a_guess() -> None:
    model = ScriptedModel([text("hi")], name="some-unpriced-model")
    result = await run("go", base_options(model, tools=[]))
    assert result.total_cost_usd is None
    assert result.model_usage["some-unpriced-model"]["cost_usd"] is None


async def test_task_budget_is_enforced_locally() -> None:
    big = Usage(input_tokens=600, output_tokens=500)
    model = ScriptedModel([tool_call("echo", value="1").with_(usage=big), text("never")])
    result = await run(
        "go",
        base_options(model, tools=[echo], task_budget=1000),
    )
    assert result.subtype == "error_max_tokens_budget"


async def test_provider_error_becomes_error_result() -> None:
    model = ScriptedModel([error("boom", kind="invalid_request", status_code=400)])
    result = await run("go", base_options(model, tools=[]))
    assert result.subtype == "error_during_execution"
    assert "boom" in result.errors[0]


async def test_script_overrun_fails_loudly() -> None:
    model = ScriptedModel([tool_call("echo", value="1")])
    result = await run("go", base_options(model, tools=[echo]))
    assert result.subtype == "error_during_execution"
    assert "script has 1 steps" in result.errors[0]
    with pytest.raises(Exception, match="called 2 times"):
        model.assert_complete()


async def test_raise_on_error_raises_after_the_result_was_yielded() -> None:
    model = ScriptedModel([error("boom")])
    seen: list[Message] = []
    with pytest.raises(ResultError, match="error_during_execution"):
        async for message in query(
            "go",
            base_options(model, tools=[], raise_on_error=True),
        ):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage)


async def test_bad_tool_calls_become_error_results_and_the_loop_goes_on() -> None:
    @tool
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("kaboom")

    @tool(timeout=0.05)
    async def hang() -> str:
        """Never returns."""
        await asyncio.Event().wait()
        return "unreachable"

    model = ScriptedModel(
        [
            tool_calls(
                [
                    ("missing_tool", {}),
                    ("echo", {"value": 3}),
                    ("echo", {}),
                    ("explode", {}),
                    ("hang", {}),
                ]
            ),
            raw_tool_call("echo", '{"value": "unterminated'),
            text("recovered"),
        ]
    )
    messages = await collect("go", base_options(model, tools=[echo, explode, hang]))
    results = tool_results(messages)
    assert [r.is_error for r in results] == [True] * 6
    assert "no tool named 'missing_tool'" in results[0].text
    assert "invalid arguments for echo" in results[1].text
    assert "'value' is a required property" in results[2].text
    assert "RuntimeError: kaboom" in results[3].text
    assert "did not finish within" in results[4].text
    assert "not a valid JSON object" in results[5].text
    assert_says_what_to_do(results[0].text, "Available tools: echo, explode, hang")
    for bad_arguments in results[1:3]:
        assert_says_what_to_do(bad_arguments.text, "send the call again with arguments that match")
    assert_says_what_to_do(results[5].text, "Send the arguments again as one JSON object")
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "recovered"


async def test_read_only_calls_overlap_and_mutating_calls_do_not() -> None:
    spans: dict[str, tuple[float, float]] = {}

    async def timed(name: str) -> str:
        start = time.monotonic()
        await asyncio.sleep(0.05)
        spans[name] = (start, time.monotonic())
        return name

    @tool(read_only=True)
    async def look(name: str) -> str:
        """Read-only."""
        return await timed(name)

    @tool
    async def change(name: str) -> str:
        """Mutating."""
        return await timed(name)

    calls = [
        ("look", {"name": "r1"}),
        ("look", {"name": "r2"}),
        ("look", {"name": "r3"}),
        ("change", {"name": "w1"}),
        ("change", {"name": "w2"}),
    ]
    model = ScriptedModel([tool_calls(calls), text("done")])
    messages = await collect("go", base_options(model, tools=[look, change]))

    def overlap(a: str, b: str) -> bool:
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]

    assert overlap("r1", "r2") and overlap("r2", "r3")
    assert not overlap("w1", "w2")
    assert not overlap("r3", "w1")
    assert [r.text for r in tool_results(messages)] == ["r1", "r2", "r3", "w1", "w2"]


async def test_results_keep_the_models_order_when_later_calls_finish_first() -> None:
    @tool(read_only=True)
    async def wait(ms: int) -> str:
        """Sleep ms."""
        await asyncio.sleep(ms / 1000)
        return str(ms)

    model = ScriptedModel([tool_calls([("wait", {"ms": 60}), ("wait", {"ms": 1})]), text("x")])
    messages = await collect("go", base_options(model, tools=[wait]))
    results = tool_results(messages)
    assert [r.text for r in results] == ["60", "1"]
    assistant = next(m for m in messages if isinstance(m, AssistantMessage))
    assert [r.tool_use_id for r in results] == [c.id for c in assistant.tool_calls]


async def test_partial_messages_stream_text_and_tool_input() -> None:
    model = ScriptedModel([tool_call("echo", value="x"), text("two words")])
    messages = await collect(
        "go",
        base_options(model, tools=[echo], include_partial_messages=True),
    )
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    assert {
        "type": "tool_call_start",
        "index": 0,
        "id": "toolu_scripted_1_0",
        "name": "echo",
    } in events
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "two words"
    assert not any(
        isinstance(m, StreamEvent)
        for m in await collect(
            "go",
            base_options(ScriptedModel([text("a b")]), tools=[]),
        )
    )


async def test_text_cut_by_max_tokens_is_continued() -> None:
    model = ScriptedModel([text("first half ", stop_reason="max_tokens"), text("second half")])
    result = await run("go", base_options(model, tools=[]))
    assert (result.subtype, result.result) == ("success", "first half second half")
    assert "cut off" in str(model.requests[1].messages[-1].content)


async def test_cut_tool_call_is_retried_once_with_a_larger_limit() -> None:
    cut = raw_tool_call("echo", '{"value": "abc').with_(stop_reason="max_tokens")
    model = ScriptedModel([cut, tool_call("echo", value="abc"), text("ok")])
    messages = await collect(
        "go",
        base_options(model, tools=[echo], max_tokens=100),
    )
    assert model.requests[1].max_tokens == 200
    assert not any(r.is_error for r in tool_results(messages))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
    twice = ScriptedModel([cut, cut])
    result = await run(
        "go",
        base_options(twice, tools=[echo], max_tokens=100),
    )
    assert result.subtype == "error_during_execution" and "twice" in result.errors[0]


async def test_pause_turn_sends_the_content_back_and_continues() -> None:
    model = ScriptedModel([text("working", stop_reason="pause_turn"), text("finished")])
    await run("go", base_options(model, tools=[]))
    second = model.requests[1].messages
    assert isinstance(second[-1], AssistantMessage) and second[-1].text == "working"


async def test_refusal_ends_the_run_with_stop_reason_refusal() -> None:
    model = ScriptedModel([text("I can't help with that", stop_reason="refusal")])
    result = await run("go", base_options(model, tools=[]))
    assert (result.subtype, result.stop_reason) == ("success", "refusal")


async def test_function_model_sees_every_request() -> None:
    def answer(request: Any) -> Any:
        return text(f"{len(request.messages)} messages")

    result = await run("go", base_options(FunctionModel(answer), tools=[]))
    assert result.result == "1 messages"


async def test_disallowed_bare_name_removes_the_tool() -> None:
    model = ScriptedModel([text("x")])
    messages = await collect(
        "go",
        base_options(model, tools=[echo], disallowed_tools=["echo"]),
    )
    assert messages[0].data["tools"] == []  # type: ignore[union-attr]
    assert model.requests[0].tools == []


async def test_retryable_errors_are_retried_and_visible_as_api_retry() -> None:
    model = ScriptedModel([error("busy", kind="rate_limit", status_code=429), text("finally")])
    messages = await collect("go", base_options(model, tools=[]))
    retries = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
    assert len(retries) == 1
    assert retries[0].data["attempt"] == 1 and retries[0].data["error_status"] == 429
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "finally"


async def test_retries_stop_after_max_retries_with_the_providers_message() -> None:
    model = ScriptedModel([error("down", kind="server")] * 3)
    result = await run("go", base_options(model, tools=[], max_retries=2))
    assert result.subtype == "error_during_execution"
    assert "down" in result.errors[0]
    model.assert_complete()


async def test_fallback_model_takes_over_after_repeated_overloads() -> None:
    overloaded = error("overloaded", kind="overloaded", status_code=529)
    primary = ScriptedModel([overloaded, overloaded], name="primary")
    fallback = ScriptedModel([text("from the fallback")], name="backup")
    result = await run(
        "go",
        base_options(primary, fallback_model=fallback, tools=[]),
    )
    assert result.result == "from the fallback"
    assert list(result.model_usage) == ["backup"]


async def test_reasoning_options_on_a_model_without_them_are_noted_once() -> None:
    from loopwright.testing import FakeOpenAIServer

    with FakeOpenAIServer([text("a"), text("b")]) as server:
        from loopwright.models.openai_chat import OpenAIChatModel

        model = OpenAIChatModel("gpt-4o", api_key="test", base_url=server.base_url)
        from loopwright import Client

        async with Client(base_options(model, tools=[], effort="high")) as client:
            notes = []
            for prompt in ("one", "two"):
                await client.query(prompt)
                async for message in client.receive_response():
                    if isinstance(message, SystemMessage) and message.subtype == "informational":
                        notes.append(message.data["message"])
    assert len(notes) == 1 and "effort" in notes[0]


async def test_a_failing_gate_still_answers_every_call_and_ends_with_a_result() -> None:
    import dataclasses

    from loopwright.loop.run import agent_loop
    from loopwright.session.assemble import assemble_session as open_session
    from loopwright.tools.base import GateReport

    class BrokenGate:
        mode = "default"

        def set_mode(self, mode: str) -> None:
            self.mode = mode

        def end_batch(self) -> GateReport:
            return GateReport()

        async def before(self, tool: Any, input: Any, ctx: Any) -> Any:
            raise RuntimeError("policy service unreachable")

        async def after(self, tool: Any, input: Any, result: Any, ctx: Any) -> Any:
            return result

    model = ScriptedModel([tool_call("echo", value="x")])
    session = await open_session(
        Options(model=model, tools=[echo], setting_sources=[], persist_session=False)
    )
    session.use_agent(dataclasses.replace(session.agent, gate=BrokenGate()))
    messages = [m async for m in agent_loop(session, UserMessage("go"))]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert "policy service unreachable" in result.errors[0]
    assert len(tool_results(messages)) == 1
    await session.aclose()
