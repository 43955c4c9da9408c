"""A dollar budget either holds or refuses to start: a model without a known price fails
at start with what to do, prices can ride in the model string, and a token budget is the
opt-in way to run an unpriced model."""

from __future__ import annotations

from typing import Any

import pytest

from loopwright import Options, run
from loopwright.cost import price_of
from loopwright.errors import ConfigurationError
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.testing.fake_openai import FakeOpenAIServer
from support import base_options


@pytest.fixture
def tool() -> Any:
    from loopwright import tool as make_tool

    @make_tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    return noop


def options(model: Any, tools: list[Any], **extra: Any) -> Options:
    return base_options(model, tools=tools, **extra)


async def test_a_budget_on_a_model_without_a_price_fails_at_start_saying_how_to_price_it() -> None:
    model = ScriptedModel([text("never")], name="qwen3-coder-local")
    with pytest.raises(ConfigurationError) as caught:
        await run("hi", options(model, [], max_budget_usd=0.0001))
    message = str(caught.value)
    assert "no price is known for model 'qwen3-coder-local'" in message
    assert "input_price=" in message and "register_price" in message
    assert "task_budget" in message
    assert model.requests == []  # refused before any request was sent


async def test_a_token_budget_is_the_opt_in_for_an_unpriced_model() -> None:
    model = ScriptedModel([text("fine")], name="qwen3-coder-local")
    result = await run("hi", options(model, [], max_budget_usd=0.0001, task_budget=10_000))
    assert result.subtype == "success" and result.total_cost_usd is None


async def test_prices_in_the_model_string_make_the_budget_hold(tool: Any) -> None:
    script = [tool_call("noop") for _ in range(20)]
    with FakeOpenAIServer(script) as server:
        spec = (
            f"openai-chat:qwen3-soak?base_url={server.base_url}&input_price=1000&output_price=1000"
        )
        result = await run("loop", options(spec, [tool], max_budget_usd=0.0001))
    assert result.subtype == "error_max_budget_usd"
    assert result.num_turns < 3 and result.total_cost_usd is not None
    price = price_of("qwen3-soak")
    assert price is not None and price.input == 1000 and price.cache_read == 1000


def test_a_price_in_the_model_string_that_is_not_a_number_is_refused() -> None:
    from loopwright.models.registry import resolve_model

    with pytest.raises(ConfigurationError, match="not a price"):
        resolve_model("openai-chat:m?base_url=http://127.0.0.1:1/v1&input_price=x&output_price=1")
    with pytest.raises(ConfigurationError, match="both input_price and output_price"):
        resolve_model("openai-chat:m?base_url=http://127.0.0.1:1/v1&input_price=1")
