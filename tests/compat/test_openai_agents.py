"""The OpenAI Agents SDK layer, driven through the real loop by ScriptedModel."""

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from loopwright.compat.openai_agents import (
    Agent,
    AgentUpdatedStreamEvent,
    ItemHelpers,
    MaxTurnsExceeded,
    MessageOutputItem,
    ModelSettings,
    RunContextWrapper,
    RunItemStreamEvent,
    Runner,
    ToolCallOutputItem,
    UserError,
    function_tool,
)
from loopwright.testing import ScriptedModel, text, tool_call, tool_calls

tool_runs: list[str] = []


@function_tool
def get_weather(city: str) -> str:
    """Return the current weather of a city.

    Args:
        city: The city's name.
    """
    tool_runs.append(city)
    return f"{city}: sunny, 24 degrees"


def weather_agent(model: ScriptedModel, **changes: Any) -> Agent:
    settings: dict[str, Any] = {
        "name": "Weather agent",
        "instructions": "Answer weather questions with get_weather.",
        "tools": [get_weather],
        "model": model,
    }
    return Agent(**(settings | changes))


def test_function_tool_schema_comes_from_hints_and_docstring() -> None:
    assert get_weather.name == "get_weather"
    assert get_weather.description == "Return the current weather of a city."
    assert get_weather.input_schema["properties"]["city"] == {
        "type": "string",
        "description": "The city's name.",
    }
    assert get_weather.input_schema["required"] == ["city"]


def test_function_tool_overrides_name_and_description() -> None:
    @function_tool(name_override="lookup", description_override="Look it up")
    def find(term: str) -> str:
        return term

    assert (find.name, find.description) == ("lookup", "Look it up")


async def test_run_calls_the_agents_tools_without_asking_and_returns_the_final_text() -> None:
    tool_runs.clear()
    model = ScriptedModel(
        [
            tool_calls([("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Osaka"})]),
            text("Both sunny."),
        ]
    )
    result = await Runner.run(weather_agent(model), "Weather in Tokyo and Osaka?")

    assert result.final_output == "Both sunny."
    assert tool_runs == ["Tokyo", "Osaka"]
    outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert outputs == ["Tokyo: sunny, 24 degrees", "Osaka: sunny, 24 degrees"]
    assert result.last_agent.name == "Weather agent"


async def test_the_model_sees_only_the_agents_tools_and_its_instructions() -> None:
    model = ScriptedModel([text("hi")])
    await Runner.run(weather_agent(model), "hello")

    request = model.requests[0]
    assert [spec.name for spec in request.tools] == ["get_weather"]
    assert request.system == "Answer weather questions with get_weather."


async def test_callable_instructions_get_the_run_context_and_the_agent() -> None:
    def instructions(ctx: RunContextWrapper, agent: Agent) -> str:
        return f"You are {agent.name}, helping {ctx.context['user']}."

    model = ScriptedModel([text("hi")])
    await Runner.run(weather_agent(model, instructions=instructions), "hi", context={"user": "Ann"})

    assert model.requests[0].system == "You are Weather agent, helping Ann."


def test_run_sync_returns_the_same_result_shape() -> None:
    model = ScriptedModel([tool_call("get_weather", city="Oslo"), text("Sunny in Oslo.")])
    result = Runner.run_sync(weather_agent(model), "Oslo?", max_turns=2)

    assert result.final_output == "Sunny in Oslo."
    assert result.raw_result.num_turns == 1


async def test_max_turns_counts_model_calls_and_raises_when_exceeded() -> None:
    model = ScriptedModel([tool_call("get_weather", city="A"), tool_call("get_weather", city="B")])

    with pytest.raises(MaxTurnsExceeded, match=r"Max turns \(2\) exceeded"):
        await Runner.run(weather_agent(model), "loop", max_turns=2)
    assert len(model.requests) == 2


async def test_default_max_turns_is_ten_model_calls() -> None:
    model = ScriptedModel([tool_call("get_weather", city=str(n)) for n in range(10)])

    with pytest.raises(MaxTurnsExceeded, match=r"\(10\)"):
        await Runner.run(weather_agent(model), "forever")
    assert len(model.requests) == 10


class Forecast(BaseModel):
    city: str
    temperature: int


@dataclass
class Reading:
    city: str
    sunny: bool


async def test_pydantic_output_type_becomes_a_model_instance() -> None:
    model = ScriptedModel(
        [tool_call("StructuredOutput", city="Tokyo", temperature=24)],
    )
    result = await Runner.run(weather_agent(model, output_type=Forecast), "Tokyo?", max_turns=1)

    assert result.final_output == Forecast(city="Tokyo", temperature=24)
    assert result.final_output_as(Forecast, raise_if_incorrect_type=True).temperature == 24


async def test_dataclass_output_type_becomes_a_dataclass_instance() -> None:
    model = ScriptedModel([tool_call("StructuredOutput", city="Oslo", sunny=False)])
    result = await Runner.run(weather_agent(model, output_type=Reading), "Oslo?")

    assert result.final_output == Reading(city="Oslo", sunny=False)


async def test_run_streamed_yields_items_and_text_then_sets_final_output() -> None:
    model = ScriptedModel([tool_call("get_weather", city="Rome"), text("Rome is sunny.")])
    streamed = Runner.run_streamed(weather_agent(model), "Rome?")

    events = [event async for event in streamed.stream_events()]

    assert isinstance(events[0], AgentUpdatedStreamEvent)
    names = [e.name for e in events if isinstance(e, RunItemStreamEvent)]
    assert names == ["tool_called", "tool_output", "message_output_created"]
    deltas = [
        e.data.delta
        for e in events
        if e.type == "raw_response_event" and e.data.type == "response.output_text.delta"
    ]
    assert "".join(deltas) == "Rome is sunny."
    assert streamed.is_complete and streamed.final_output == "Rome is sunny."
    message = [e.item for e in events if isinstance(e, RunItemStreamEvent)][-1]
    assert isinstance(message, MessageOutputItem)
    assert ItemHelpers.text_message_output(message) == "Rome is sunny."


async def test_run_streamed_raises_max_turns_exceeded_at_the_end_of_the_stream() -> None:
    model = ScriptedModel([tool_call("get_weather", city="X")])
    streamed = Runner.run_streamed(weather_agent(model), "X?", max_turns=1)

    with pytest.raises(MaxTurnsExceeded):
        async for _ in streamed.stream_events():
            pass


def test_a_plain_function_in_tools_is_refused() -> None:
    def undecorated(city: str) -> str:
        return city

    with pytest.raises(UserError, match="@function_tool"):
        Agent(name="A", tools=[undecorated])  # type: ignore[list-item]


async def test_a_list_of_user_messages_is_one_prompt() -> None:
    model = ScriptedModel([text("ok")])
    await Runner.run(
        weather_agent(model),
        [{"role": "user", "content": "first"}, {"role": "user", "content": "second"}],
    )

    prompt = model.requests[0].messages[-1]
    assert [b.text for b in prompt.content] == ["first", "second"]  # type: ignore[union-attr]


async def test_model_settings_max_tokens_and_effort_reach_the_request() -> None:
    model = ScriptedModel([text("ok")])
    settings = ModelSettings(max_tokens=321, reasoning={"effort": "low"})
    await Runner.run(weather_agent(model, model_settings=settings), "hi")

    assert (model.requests[0].max_tokens, model.requests[0].effort) == (321, "low")


async def test_loopwright_model_replaces_the_agents_model_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("- text: from the script\n")
    monkeypatch.setenv("LOOPWRIGHT_MODEL", f"scripted:{script}")

    result = await Runner.run(Agent(name="A", model="gpt-6-sol"), "hi")

    assert result.final_output == "from the script"


@dataclass
class UserInfo:
    name: str
    age: int


@function_tool
async def fetch_user_age(wrapper: RunContextWrapper[UserInfo]) -> str:
    """Return the age of the current user."""
    return f"{wrapper.context.name} is {wrapper.context.age}"


def test_a_context_parameter_is_left_out_of_the_tool_schema() -> None:
    assert fetch_user_age.input_schema.get("properties", {}) == {}
    assert fetch_user_age.description == "Return the age of the current user."


async def test_a_tool_taking_the_run_context_receives_the_runs_context() -> None:
    model = ScriptedModel([tool_call("fetch_user_age"), text("done")])
    agent = Agent(name="Ages", tools=[fetch_user_age], model=model)
    result = await Runner.run(agent, "How old am I?", context=UserInfo("Ann", 47))

    outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert outputs == ["Ann is 47"]


async def test_an_agent_as_a_tool_runs_it_and_returns_its_final_output() -> None:
    translator_model = ScriptedModel([text("Bonjour")])
    translator = Agent(
        name="French translator", instructions="Translate to French.", model=translator_model
    )
    translate = translator.as_tool(tool_description="Translate text to French")
    model = ScriptedModel([tool_call("french_translator", input="Hello"), text("It is Bonjour.")])
    orchestrator = Agent(name="Orchestrator", tools=[translate], model=model)

    result = await Runner.run(orchestrator, "Say hello in French")

    assert result.final_output == "It is Bonjour."
    outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    assert outputs == ["Bonjour"]
    assert translator_model.requests[0].system == "Translate to French."


async def test_an_agent_without_a_model_prefers_openai_when_its_key_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from loopwright.compat.openai_agents._impl.models import native_model

    monkeypatch.delenv("LOOPWRIGHT_MODEL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    model = native_model(Agent(name="A").model)

    assert type(model).__name__ == "OpenAIResponsesModel"


@pytest.mark.filterwarnings("error::RuntimeWarning")
async def test_run_sync_inside_an_event_loop_says_to_await_run_instead() -> None:
    agent = Agent(name="a", model=ScriptedModel([text("never")]))
    with pytest.raises(RuntimeError, match=r"await Runner\.run"):
        Runner.run_sync(agent, "hi")


async def test_a_duck_typed_loopwright_model_runs_an_agent() -> None:
    # A user's own model with only name and stream (no base class) is adopted, as
    # everywhere else in loopwright.
    from loopwright.messages import TextBlock, Usage
    from loopwright.models.base import ModelRequest, ModelResponse

    class EchoModel:
        name = "echo-1"

        async def stream(self, request: ModelRequest) -> Any:
            yield ModelResponse([TextBlock("echoed")], Usage(1, 1), "end_turn", self.name)

    result = await Runner.run(Agent(name="echo", model=EchoModel()), "hi")
    assert result.final_output == "echoed"
