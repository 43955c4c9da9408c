"""``LitellmModel`` (agents.extensions.models.litellm_model) against the fake OpenAI server.

The real ``litellm`` package is an optional extra (a 44 MB wheel with tokenizers,
huggingface-hub and boto3 behind it), so it is not in the dev lock: the test with it skips
when it is not installed. The other tests put a stand-in ``litellm`` module on the path
whose ``acompletion`` forwards to the OpenAI SDK's Chat Completions call, which returns the
same shape (``choices[0].message``, ``usage``) litellm does, so the layer's side — request
body, tool calls, usage, structured output — is checked against real HTTP.
"""

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from loopwright.compat.openai_agents import Agent, RunConfig, Runner, UserError, function_tool
from loopwright.compat.openai_agents.extensions.models.litellm_model import LitellmModel
from loopwright.compat.openai_agents.models.multi_provider import MultiProvider
from loopwright.testing import text, tool_call
from loopwright.testing.fake_openai import FakeOpenAIServer

STAND_IN = '''
"""A stand-in for litellm: acompletion() through the OpenAI SDK's Chat Completions."""
from openai import AsyncOpenAI

calls = []

async def acompletion(*, model, messages, base_url=None, api_key=None, **body):
    calls.append({"model": model, **body})
    async with AsyncOpenAI(base_url=base_url, api_key=api_key or "none") as client:
        return await client.chat.completions.create(
            model=model.split("/", 1)[-1], messages=messages, **body
        )
'''


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "litellm.py").write_text(textwrap.dedent(STAND_IN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    monkeypatch.delenv("LOOPWRIGHT_MODEL", raising=False)
    yield
    sys.modules.pop("litellm", None)


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny"


async def test_litellm_model_runs_tools_through_acompletion(stand_in: None) -> None:
    with FakeOpenAIServer([tool_call("weather", city="Tokyo"), text("Sunny.")]) as server:
        model = LitellmModel("openai/gpt-lite", base_url=server.base_url, api_key="sk-l")
        agent = Agent(name="L", model=model, tools=[weather])

        result = await Runner.run(agent, "Weather in Tokyo?")

        first, second = server.bodies("/chat/completions")
    assert result.final_output == "Sunny."
    assert first["model"] == "gpt-lite" and first["tools"][0]["function"]["name"] == "weather"
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": second["messages"][-2]["tool_calls"][0]["id"],
        "content": "Tokyo: sunny",
    }
    assert result.context_wrapper.usage.requests == 2


async def test_litellm_model_asks_for_json_schema_output(stand_in: None) -> None:
    class Weather(BaseModel):
        city: str

    with FakeOpenAIServer([text('{"city": "Oslo"}')]) as server:
        model = LitellmModel("openai/gpt-lite", base_url=server.base_url)
        agent = Agent(name="L", model=model, output_type=Weather)

        result = await Runner.run(agent, "where?")

        (body,) = server.bodies("/chat/completions")
    assert result.final_output == Weather(city="Oslo")
    assert body["response_format"]["json_schema"]["name"] == "final_output"


async def test_multi_provider_litellm_prefix_makes_a_litellm_model(stand_in: None) -> None:
    import litellm  # the stand-in

    with FakeOpenAIServer([text("hi")]):
        model = MultiProvider().get_model("litellm/anthropic/claude-x")

    assert isinstance(model, LitellmModel) and model.model == "anthropic/claude-x"
    assert litellm.calls == []


def test_without_litellm_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # import litellm raises ImportError

    with pytest.raises(UserError, match=r"loopwright\[litellm\]"):
        LitellmModel("anthropic/claude-x").native()


async def test_the_real_litellm_package_reaches_the_fake_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("litellm", reason="litellm is an optional extra (loopwright[litellm])")
    monkeypatch.delenv("LOOPWRIGHT_MODEL", raising=False)
    with FakeOpenAIServer([text("from litellm")]) as server:
        model = LitellmModel("openai/gpt-lite", base_url=server.base_url, api_key="sk-l")

        result = await Runner.run(
            Agent(name="L", model=model), "hi", run_config=RunConfig(tracing_disabled=True)
        )

    assert result.final_output == "from litellm"
