"""Guardrails through the real loop: a tripped one ends the run with its own subtype."""

import asyncio
from typing import Any

from loopwright import Options, query, tool
from loopwright.guardrails import Guardrail, GuardrailInput, GuardrailVerdict
from loopwright.messages import Message, ResultMessage, SystemMessage, ToolResultBlock
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options

calls: list[str] = []


@tool
def transfer(amount: int) -> str:
    """Move money."""
    calls.append(f"transfer {amount}")
    return f"moved {amount}"


def options(model: Any, guardrails: list[Guardrail], tools: list[Any] | None = None) -> Options:
    return base_options(model, tools=tools or [], guardrails=guardrails)


async def collect(prompt: str, opts: Options) -> list[Message]:
    return [m async for m in query(prompt, opts)]


def trips_when(word: str) -> Any:
    def check(data: GuardrailInput) -> GuardrailVerdict:
        seen = data.text + "".join(str(m.content) for m in data.messages)
        return GuardrailVerdict(tripped=word in seen, info=f"saw {word}")

    return check


async def test_a_tripped_input_guardrail_ends_the_run_with_its_own_subtype() -> None:
    model = ScriptedModel([text("Here is your homework answer.")])
    guard = Guardrail("input", trips_when("homework"), name="no_homework")

    messages = await collect("do my homework", options(model, [guard]))

    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_guardrail_tripped"
    assert result.is_error and result.errors == ["input guardrail 'no_homework' tripped"]


async def test_a_tripped_guardrail_shows_in_the_stream_before_the_result() -> None:
    model = ScriptedModel([text("answer")])
    guard = Guardrail("input", trips_when("homework"), name="no_homework")

    messages = await collect("do my homework", options(model, [guard]))

    notice = messages[-2]
    assert isinstance(notice, SystemMessage) and notice.subtype == "guardrail_tripped"
    assert notice.data == {"guardrail": "no_homework", "kind": "input", "info": "saw homework"}


async def test_input_guardrails_run_beside_the_first_model_call() -> None:
    started = asyncio.Event()

    async def slow_check(data: GuardrailInput) -> GuardrailVerdict:
        started.set()
        return GuardrailVerdict()

    async def model_fn(request: Any) -> Any:
        await asyncio.wait_for(started.wait(), 5)  # only passes if the check already started
        return text("fine")

    from loopwright.testing import FunctionModel

    messages = await collect(
        "hi", options(FunctionModel(model_fn), [Guardrail("input", slow_check)])
    )

    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


async def test_an_untripped_input_guardrail_lets_the_run_succeed() -> None:
    model = ScriptedModel([text("hello")])
    guard = Guardrail("input", trips_when("homework"))

    messages = await collect("say hi", options(model, [guard]))

    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "hello"


async def test_a_tripped_output_guardrail_replaces_success() -> None:
    model = ScriptedModel([text("my phone is 555-1234")])
    guard = Guardrail("output", trips_when("555"), name="no_phone_numbers")

    messages = await collect("hi", options(model, [guard]))

    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_guardrail_tripped"
    assert result.errors == ["output guardrail 'no_phone_numbers' tripped"]


async def test_a_tripped_tool_input_guardrail_stops_the_call_and_the_run() -> None:
    calls.clear()

    def big_transfers(data: GuardrailInput) -> GuardrailVerdict:
        return GuardrailVerdict(tripped=(data.tool_input or {}).get("amount", 0) > 100)

    model = ScriptedModel([tool_call("transfer", amount=500)])
    guard = Guardrail("tool_input", big_transfers, name="limit")

    messages = await collect("pay", options(model, [guard], [transfer]))

    assert calls == []
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_guardrail_tripped"
    assert result.errors == ["tool_input guardrail 'limit' tripped"]


async def test_a_rejecting_tool_guardrail_answers_the_model_and_the_run_goes_on() -> None:
    calls.clear()

    def reject(data: GuardrailInput) -> GuardrailVerdict:
        return GuardrailVerdict(reject_message="Transfers need approval; ask the user.")

    model = ScriptedModel([tool_call("transfer", amount=5), text("I need approval.")])
    guard = Guardrail("tool_input", reject, tools=["transfer"])

    messages = await collect("pay", options(model, [guard], [transfer]))

    assert calls == []
    result_block = model.requests[1].messages[-1].blocks[0]
    assert isinstance(result_block, ToolResultBlock)
    assert result_block.text == "Transfers need approval; ask the user."
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


async def test_a_tool_output_guardrail_sees_the_result_and_can_trip() -> None:
    def no_moves(data: GuardrailInput) -> GuardrailVerdict:
        output = data.tool_output
        return GuardrailVerdict(tripped=output is not None and "moved" in str(output.content))

    model = ScriptedModel([tool_call("transfer", amount=5)])
    guard = Guardrail("tool_output", no_moves, name="audit")

    messages = await collect("pay", options(model, [guard], [transfer]))

    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.errors == [
        "tool_output guardrail 'audit' tripped"
    ]


async def test_a_guardrail_that_returns_the_wrong_type_fails_the_run_with_a_clear_error() -> None:
    model = ScriptedModel([text("hi")])
    guard = Guardrail("output", lambda data: True, name="sloppy")  # type: ignore[arg-type,return-value]

    messages = await collect("hi", options(model, [guard]))

    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert "must return a GuardrailVerdict" in result.errors[0]


async def test_an_output_guardrail_sees_a_structured_answer() -> None:
    seen: list[Any] = []

    def check(data: GuardrailInput) -> GuardrailVerdict:
        seen.append(data.structured_output)
        return GuardrailVerdict(tripped=True)

    model = ScriptedModel([tool_call("StructuredOutput", city="Oslo")])
    opts = options(model, [Guardrail("output", check, name="no_cities")])
    opts.output_format = {
        "type": "json_schema",
        "schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }

    messages = await collect("where?", opts)

    assert seen == [{"city": "Oslo"}]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_guardrail_tripped"
