"""The OpenAI Agents layer with models its users bring: a ``Model`` subclass (get_response /
stream_response), a ``ModelProvider``, ``MultiProvider`` prefixes and the
``set_default_openai_*`` defaults, against the fake OpenAI server."""

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from openai import AsyncOpenAI
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
)

from loopwright.compat.openai_agents import (
    Agent,
    Model,
    ModelProvider,
    ModelResponse,
    ModelTracing,
    MultiProvider,
    MultiProviderMap,
    RunConfig,
    Runner,
    Usage,
    UserError,
    function_tool,
    set_default_openai_api,
    set_default_openai_client,
)
from loopwright.compat.openai_agents._impl import providers as _openai_providers
from loopwright.testing import text
from loopwright.testing.fake_openai import FakeOpenAIServer


@pytest.fixture(autouse=True)
def no_defaults(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("LOOPWRIGHT_MODEL", raising=False)
    yield
    _openai_providers._Defaults.client = None
    _openai_providers._Defaults.api = None


def _message(text_out: str, message_id: str = "msg_1") -> ResponseOutputMessage:
    part = ResponseOutputText(annotations=[], text=text_out, type="output_text")
    return ResponseOutputMessage(
        id=message_id, content=[part], role="assistant", status="completed", type="message"
    )


def _call(name: str, arguments: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        arguments=json.dumps(arguments), call_id=call_id, name=name, type="function_call"
    )


class AddingModel(Model):
    """Calls ``add`` once, then answers with the tool output it was given back."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        self.calls.append(
            {"system": system_instructions, "input": list(input), "tools": [t.name for t in tools]}
        )
        outputs = [
            i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        usage = Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)
        if not outputs:
            return ModelResponse([_call("add", {"a": 2, "b": 3}, "call_1")], usage, "resp_1")
        return ModelResponse([_message(f"the sum is {outputs[-1]['output']}")], usage, "resp_2")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_model_subclass_drives_the_run_with_responses_items() -> None:
    model = AddingModel()
    agent = Agent(name="Calc", instructions="Add.", model=model, tools=[add])

    result = await Runner.run(agent, "2 + 3?")

    assert result.final_output == "the sum is 5"
    first, second = model.calls
    assert first["system"] == "Add." and first["tools"] == ["add"]
    assert first["input"] == [{"content": "2 + 3?", "role": "user"}]
    assert [i.get("type") for i in second["input"]][-2:] == [
        "function_call",
        "function_call_output",
    ]
    assert result.context_wrapper.usage.requests == 2
    assert result.context_wrapper.usage.output_tokens == 10


class StreamingModel(Model):
    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise AssertionError("a streamed run asks for stream_response")

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for number, word in enumerate(["Hello", " from", " the stream"]):
            yield ResponseTextDeltaEvent(
                content_index=0,
                delta=word,
                item_id="msg_s",
                logprobs=[],
                output_index=0,
                sequence_number=number,
                type="response.output_text.delta",
            )
        response = Response(
            id="resp_s",
            created_at=0,
            model="mine",
            object="response",
            output=[_message("Hello from the stream", "msg_s")],
            parallel_tool_calls=False,
            tool_choice="auto",
            tools=[],
        )
        yield ResponseCompletedEvent(
            response=response, sequence_number=9, type="response.completed"
        )


async def test_a_streaming_model_subclass_delivers_its_deltas_and_final_output() -> None:
    agent = Agent(name="S", model=StreamingModel())

    result = Runner.run_streamed(agent, "hi")
    deltas = [
        e.data.delta
        async for e in result.stream_events()
        if e.type == "raw_response_event" and e.data.type == "response.output_text.delta"
    ]

    assert deltas == ["Hello", " from", " the stream"]
    assert result.final_output == "Hello from the stream"


class NamedProvider(ModelProvider):
    def __init__(self) -> None:
        self.asked: list[str | None] = []

    def get_model(self, model_name: str | None) -> Model:
        self.asked.append(model_name)
        return AddingModel()


async def test_run_config_model_provider_looks_up_the_agents_model_name() -> None:
    provider = NamedProvider()
    agent = Agent(name="Calc", model="my-model", tools=[add])

    result = await Runner.run(agent, "go", run_config=RunConfig(model_provider=provider))

    assert provider.asked == ["my-model"]
    assert result.final_output == "the sum is 5"


async def test_multi_provider_routes_a_prefix_to_its_provider() -> None:
    provider = NamedProvider()
    mapping = MultiProviderMap()
    mapping.add_provider("mine", provider)
    agent = Agent(name="Calc", model="mine/some-model", tools=[add])

    result = await Runner.run(
        agent, "go", run_config=RunConfig(model_provider=MultiProvider(provider_map=mapping))
    )

    assert provider.asked == ["some-model"]
    assert result.final_output == "the sum is 5"


def test_multi_provider_says_which_prefixes_it_knows() -> None:
    with pytest.raises(UserError, match="add_provider"):
        MultiProvider().get_model("nowhere/model")


async def test_set_default_openai_client_routes_requests_to_its_base_url() -> None:
    with FakeOpenAIServer([text("served by the fake")]) as server:
        set_default_openai_client(AsyncOpenAI(base_url=server.base_url, api_key="sk-custom"))
        agent = Agent(name="A", model="gpt-custom")

        result = await Runner.run(agent, "hello")

        (request,) = server.requests
    assert result.final_output == "served by the fake"
    assert request.path.endswith("/responses")
    assert request.body["model"] == "gpt-custom"
    assert request.headers.get("authorization", request.headers.get("Authorization")) == (
        "Bearer sk-custom"
    )


async def test_set_default_openai_api_chat_completions_uses_that_endpoint() -> None:
    with FakeOpenAIServer([text("chatted")]) as server:
        set_default_openai_client(AsyncOpenAI(base_url=server.base_url, api_key="sk-c"))
        set_default_openai_api("chat_completions")

        result = await Runner.run(Agent(name="A", model="gpt-chat"), "hello")

        paths = [r.path for r in server.requests]
    assert result.final_output == "chatted"
    assert paths == ["/v1/chat/completions"]


def test_set_default_openai_api_refuses_an_unknown_api() -> None:
    with pytest.raises(UserError, match="chat_completions"):
        set_default_openai_api("websocket")  # type: ignore[arg-type]


class LoggingModel(Model):
    """A user's wrapper that delegates to the SDK's own model, as tracing vendors do."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.log: list[str] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.log.append("get_response")
        return await self.inner.get_response(*args, **kwargs)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.log.append("stream_response")
        async for event in self.inner.stream_response(*args, **kwargs):
            self.log.append(event.type)
            yield event


async def test_a_wrapper_around_the_sdks_responses_model_runs_tools() -> None:
    from loopwright.compat.openai_agents import OpenAIResponsesModel
    from loopwright.testing import tool_call

    with FakeOpenAIServer([tool_call("add", a=1, b=2), text("three")]) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="sk-w")
        model = LoggingModel(OpenAIResponsesModel("gpt-w", openai_client=client))
        agent = Agent(name="W", instructions="Be brief.", model=model, tools=[add])

        result = await Runner.run(agent, "1 + 2?")

        first, second = server.bodies("/responses")
    assert result.final_output == "three"
    assert model.log == ["get_response", "get_response"]
    assert first["instructions"] == "Be brief." and first["tools"][0]["name"] == "add"
    assert [i.get("type") for i in second["input"]][-1] == "function_call_output"


async def test_a_streamed_wrapper_sees_the_responses_events() -> None:
    from loopwright.compat.openai_agents import OpenAIChatCompletionsModel

    with FakeOpenAIServer([text("streamed words")]) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="sk-w")
        model = LoggingModel(OpenAIChatCompletionsModel("gpt-w", openai_client=client))

        result = Runner.run_streamed(Agent(name="S", model=model), "hi")
        async for _ in result.stream_events():
            pass

    assert result.final_output == "streamed words"
    assert model.log[0] == "stream_response"
    assert "response.output_text.delta" in model.log
    assert model.log[-1] == "response.completed"


class JsonModel(Model):
    """Answers with JSON that matches the output schema it is given."""

    def __init__(self) -> None:
        self.schemas: list[Any] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        output_schema = args[4]
        self.schemas.append(output_schema)
        answer = json.dumps({"city": "Oslo", "celsius": 3})
        return ModelResponse([_message(answer)], Usage(requests=1), "resp_j")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


async def test_a_model_subclass_gets_the_output_schema_and_answers_in_json() -> None:
    from pydantic import BaseModel

    class Weather(BaseModel):
        city: str
        celsius: int

    model = JsonModel()
    result = await Runner.run(Agent(name="J", model=model, output_type=Weather), "weather")

    assert result.final_output == Weather(city="Oslo", celsius=3)
    (schema,) = model.schemas
    assert schema.name() == "Weather" and schema.json_schema()["required"] == ["city", "celsius"]
