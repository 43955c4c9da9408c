"""``output_type`` on the OpenAI Agents layer: providers with native structured output get
the schema in the request (Responses ``text.format``, Chat ``response_format``) and answer
in JSON; the others (Anthropic) deliver it through loopwright's StructuredOutput tool."""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from openai import AsyncOpenAI
from pydantic import BaseModel

from loopwright.compat.openai_agents import (
    Agent,
    AgentOutputSchema,
    ModelBehaviorError,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    UserError,
)
from loopwright.models.anthropic import AnthropicModel
from loopwright.testing import text, tool_call
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer


class Weather(BaseModel):
    city: str
    celsius: int


class Jokes(BaseModel):
    jokes: dict[int, str]


@pytest.fixture(autouse=True)
def no_override(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("LOOPWRIGHT_MODEL", raising=False)
    yield


def _client(server: FakeOpenAIServer) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.base_url, api_key="sk-test")


async def test_responses_requests_carry_a_strict_text_format_and_no_tool() -> None:
    answer = json.dumps({"city": "Oslo", "celsius": 4})
    with FakeOpenAIServer([text(answer)]) as server:
        model = OpenAIResponsesModel("gpt-x", openai_client=_client(server))
        agent = Agent(name="W", model=model, output_type=Weather)

        result = await Runner.run(agent, "weather?")

        (body,) = server.bodies("/responses")
    assert result.final_output == Weather(city="Oslo", celsius=4)
    fmt = body["text"]["format"]
    assert (fmt["type"], fmt["name"], fmt["strict"]) == ("json_schema", "final_output", True)
    assert fmt["schema"]["additionalProperties"] is False
    assert fmt["schema"]["required"] == ["city", "celsius"]
    assert "tools" not in body


async def test_chat_requests_carry_response_format_json_schema() -> None:
    with FakeOpenAIServer([text(json.dumps({"city": "Rome", "celsius": 20}))]) as server:
        model = OpenAIChatCompletionsModel("gpt-x", openai_client=_client(server))
        agent = Agent(name="W", model=model, output_type=Weather)

        result = await Runner.run(agent, "weather?")

        (body,) = server.bodies("/chat/completions")
    assert result.final_output.city == "Rome"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "final_output"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert "tools" not in body


async def test_a_non_strict_schema_is_sent_non_strict_and_parsed() -> None:
    answer = json.dumps({"jokes": {"1": "a", "2": "b"}})
    with FakeOpenAIServer([text(answer)]) as server:
        model = OpenAIResponsesModel("gpt-x", openai_client=_client(server))
        schema = AgentOutputSchema(Jokes, strict_json_schema=False)
        agent = Agent(name="J", model=model, output_type=schema)

        result = await Runner.run(agent, "jokes")

        (body,) = server.bodies("/responses")
    assert result.final_output == Jokes(jokes={1: "a", 2: "b"})
    assert body["text"]["format"]["strict"] is False


def test_a_strict_schema_with_free_form_keys_says_to_go_non_strict() -> None:
    with pytest.raises(UserError, match="strict_json_schema=False"):
        AgentOutputSchema(Jokes)


async def test_a_list_output_type_is_wrapped_in_a_response_object() -> None:
    with FakeOpenAIServer([text(json.dumps({"response": ["x", "y"]}))]) as server:
        model = OpenAIResponsesModel("gpt-x", openai_client=_client(server))
        agent = Agent(name="L", model=model, output_type=list[str])

        result = await Runner.run(agent, "list")

        (body,) = server.bodies("/responses")
    assert result.final_output == ["x", "y"]
    assert body["text"]["format"]["schema"]["required"] == ["response"]


async def test_an_answer_that_does_not_match_raises_model_behavior_error() -> None:
    with FakeOpenAIServer([text('{"city": "Oslo"}')]) as server:
        model = OpenAIResponsesModel("gpt-x", openai_client=_client(server))
        agent = Agent(name="W", model=model, output_type=Weather)

        with pytest.raises(ModelBehaviorError, match="celsius"):
            await Runner.run(agent, "weather?")


async def test_anthropic_keeps_the_structured_output_tool() -> None:
    script = [tool_call("StructuredOutput", city="Lima", celsius=18), text("done")]
    with FakeAnthropicServer(script) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="test", base_url=server.base_url)
        agent = Agent(name="W", model=model, output_type=Weather)

        result = await Runner.run(agent, "weather?")

        body: Any = server.bodies()[0]
    assert result.final_output == Weather(city="Lima", celsius=18)
    assert [t["name"] for t in body["tools"]] == ["StructuredOutput"]
    assert "response_format" not in body and "output_format" not in body
