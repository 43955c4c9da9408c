"""Wrappers pass on every member of what they wrap: a tool under a guardrail keeps its own
timeout and its schema object, and the validator cache does not grow with calls."""

from __future__ import annotations

import asyncio
from typing import Any

from loopwright import Options, query, tool
from loopwright.guardrails import Guardrail, GuardrailInput, GuardrailVerdict, guarded_tool
from loopwright.messages import ResultMessage, ToolResultBlock
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import ToolWrapper
from loopwright.tools.executor import cached_validators
from support import base_options


@tool(timeout=0.2)
async def slow() -> str:
    """Takes far longer than its own timeout."""
    await asyncio.sleep(30)
    return "finished"


@tool
def echo(word: str) -> str:
    """Say it back."""
    return word


def allow_all(data: GuardrailInput) -> GuardrailVerdict:
    return GuardrailVerdict()


GUARD = Guardrail("tool_input", allow_all)


def options(model: Any, tools: list[Any]) -> Options:
    return base_options(model, tools=tools, guardrails=[GUARD])


async def test_a_guarded_tool_times_out_at_its_own_timeout_not_the_default() -> None:
    model = ScriptedModel([tool_call("slow"), text("gave up")])
    messages = [m async for m in query("go", options(model, [slow]))]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
    block = model.requests[1].messages[-1].blocks[0]
    assert isinstance(block, ToolResultBlock) and block.is_error
    assert "did not finish within 0.2 s" in block.text


def test_a_guarded_tool_is_a_tool_wrapper_with_the_same_schema_object() -> None:
    wrapped = guarded_tool(echo, [GUARD])
    assert isinstance(wrapped, ToolWrapper)
    assert wrapped.input_schema is echo.input_schema
    assert wrapped.timeout_seconds is None and slow.timeout_seconds == 0.2
    assert guarded_tool(slow, [GUARD]).timeout_seconds == 0.2


async def test_guarded_calls_do_not_grow_the_validator_cache() -> None:
    async def one_session() -> None:
        model = ScriptedModel([tool_call("echo", word="hi"), text("done")])
        async for _ in query("go", options(model, [echo])):
            pass

    await one_session()
    before = cached_validators()
    for _ in range(20):
        await one_session()
    assert cached_validators() == before


async def test_the_gate_keeps_no_copy_of_a_long_sessions_denials() -> None:
    from loopwright import Client

    turns = [step for _ in range(30) for step in (tool_call("echo", word="x"), text("no"))]
    model = ScriptedModel(turns)
    opts = Options(
        model=model,
        tools=[echo],
        setting_sources=[],
        persist_session=False,
        disallowed_tools=["echo(*)"],
    )
    async with Client(opts) as client:
        for _ in range(30):
            await client.query("again")
            result = [m async for m in client.receive_response()][-1]
            assert isinstance(result, ResultMessage) and len(result.permission_denials) == 1
        gate: Any = client.session.agent.gate
        assert len(gate.permission_denials) == 0


async def test_model_wrappers_pass_on_window_token_counting_and_close() -> None:
    from loopwright.models.base import ModelRequest, ModelWrapper
    from loopwright.models.retry import RetryingModel

    class Counted(ScriptedModel):
        context_window = 5_000
        closed = False

        async def count_tokens(self, request: ModelRequest) -> int:
            return 42

        async def aclose(self) -> None:
            self.closed = True

    class Plain(ModelWrapper):
        def __init__(self, inner: Counted) -> None:
            self.inner = inner

        @property
        def wrapped(self) -> Counted:
            return self.inner

    inner = Counted([text("x")])
    for wrapper in (RetryingModel(inner), Plain(inner), Plain(Plain(inner))):  # type: ignore[arg-type]
        assert wrapper.name == inner.name and wrapper.context_window == 5_000
        assert await wrapper.count_tokens(ModelRequest("m", "", [])) == 42
    await Plain(inner).aclose()
    assert inner.closed
