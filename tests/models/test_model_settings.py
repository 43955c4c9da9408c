"""ModelSettings and server_tools: mapped per provider on the wire, refused at start where a
provider has no field for them, and reachable from Options, agents and the CLI."""

from __future__ import annotations

import argparse

import pytest
from anthropic.types.message_create_params import MessageCreateParamsStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

from error_advice import assert_says_what_to_do
from loopwright import Options, run, run_sync
from loopwright.cli.agent_arguments import add_agent_arguments, options_from_args
from loopwright.errors import ConfigurationError
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import Model
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.scripted import text
from loopwright.models.settings import ModelSettings
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from ._validate import validate
from .conftest import ask, collect

PORTABLE = ModelSettings(
    temperature=0.2,
    top_p=0.9,
    tool_choice="Read",
    parallel_tool_calls=False,
    service_tier="auto",
    user="user-42",
)


async def test_anthropic_maps_settings_to_its_own_fields() -> None:
    settings = ModelSettings(
        stop=("END",),
        tool_choice="Read",
        parallel_tool_calls=False,
        service_tier="standard_only",
        user="user-42",
        extra_headers={"X-Trace": "t1"},
    )
    with FakeAnthropicServer([text("ok")]) as server:
        model = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=server.base_url)
        await collect(model, ask(settings=settings))
    body = server.bodies("/v1/messages")[0]
    validate(MessageCreateParamsStreaming, body)
    assert body["stop_sequences"] == ["END"]
    assert body["tool_choice"] == {
        "type": "tool",
        "name": "Read",
        "disable_parallel_tool_use": True,
    }
    assert body["service_tier"] == "standard_only"
    assert body["metadata"] == {"user_id": "user-42"}
    assert server.requests[0].headers["x-trace"] == "t1"


async def test_responses_maps_settings_to_its_own_fields() -> None:
    settings = ModelSettings(
        **{**_fields(PORTABLE), "tool_choice": "any", "service_tier": "flex"},
        reasoning_summary="detailed",
        metadata={"ticket": "T-1"},
    )
    with FakeOpenAIServer([text("ok")]) as server:
        model = OpenAIResponsesModel("gpt-5.5", api_key="k", base_url=server.base_url)
        await collect(model, ask(settings=settings))
    body = server.bodies("/v1/responses")[0]
    validate(ResponseCreateParamsStreaming, body)
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    assert body["reasoning"]["summary"] == "detailed"
    assert body["safety_identifier"] == "user-42" and body["metadata"] == {"ticket": "T-1"}
    assert body["service_tier"] == "flex" and body["temperature"] == 0.2


async def test_chat_maps_settings_and_passes_extra_body_through() -> None:
    settings = ModelSettings(
        **_fields(PORTABLE),
        stop=("\n\n",),
        seed=7,
        extra_body={"provider": {"order": ["groq"]}, "reasoning_format": "parsed"},
    )
    with FakeOpenAIServer([text("ok")]) as server:
        model = OpenAIChatModel("gpt-oss-120b", base_url=server.base_url)
        await collect(model, ask(settings=settings))
    body = server.bodies("/chat/completions")[0]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Read"}}
    assert body["stop"] == ["\n\n"] and body["seed"] == 7 and body["user"] == "user-42"
    assert body["provider"] == {"order": ["groq"]} and body["reasoning_format"] == "parsed"
    validate(
        CompletionCreateParamsStreaming,
        {k: v for k, v in body.items() if k not in ("provider", "reasoning_format")},
    )


@pytest.mark.parametrize(
    ("make", "settings", "needle"),
    [
        (
            lambda url: AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=url),
            ModelSettings(seed=1),
            "does not support seed",
        ),
        (
            lambda url: OpenAIResponsesModel("gpt-5.5", api_key="k", base_url=url),
            ModelSettings(stop=("x",)),
            "does not support stop",
        ),
        (
            lambda url: OpenAIChatModel("llama3", base_url=url),
            ModelSettings(reasoning_summary="auto"),
            "does not support reasoning_summary",
        ),
        (
            lambda url: AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=url),
            ModelSettings(service_tier="flex"),
            "use auto or standard_only",
        ),
        (
            lambda url: AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=url),
            ModelSettings(temperature=0.2),
            "does not support temperature",
        ),
    ],
    ids=["anthropic-seed", "responses-stop", "chat-summary", "anthropic-tier", "anthropic-temp"],
)
def test_unsupported_settings_fail_at_start_with_what_to_do(
    make: object, settings: ModelSettings, needle: str
) -> None:
    with FakeOpenAIServer([]) as server:
        model: Model = make(server.base_url)  # type: ignore[operator]
        with pytest.raises(ConfigurationError, match=needle) as caught:
            run_sync("hi", Options(model=model, model_settings=settings, setting_sources=[]))
        assert server.requests == []  # refused before any request
    message = str(caught.value)
    assert "remove" in message or "use" in message


def test_server_tools_on_chat_completions_point_to_the_responses_api() -> None:
    model = OpenAIChatModel("gpt-5.5", api_key="k")
    with pytest.raises(ConfigurationError, match=r"openai:<id>"):
        run_sync("hi", Options(model=model, server_tools=["web_search"], setting_sources=[]))


def test_unknown_server_tool_names_list_the_known_ones() -> None:
    model = AnthropicModel("claude-sonnet-5-5", api_key="k")
    with pytest.raises(ConfigurationError, match="web_search, web_fetch, code_execution"):
        run_sync("hi", Options(model=model, server_tools=["web_serch"], setting_sources=[]))


async def test_anthropic_server_tools_are_offered_with_their_betas() -> None:
    tools = ("web_search", "web_fetch", {"type": "bash_20250124", "name": "bash"})
    with FakeAnthropicServer([text("ok")]) as server:
        model = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=server.base_url)
        await collect(model, ask(server_tools=tools))
    sent = server.requests[0]
    offered = [(t.get("type"), t["name"]) for t in sent.body["tools"]]
    assert offered[2:] == [
        ("web_search_20250305", "web_search"),
        ("web_fetch_20250910", "web_fetch"),
        ("bash_20250124", "bash"),
    ]
    assert "web-fetch-2025-09-10" in sent.headers["anthropic-beta"]


async def test_options_model_settings_reach_the_wire_through_the_loop() -> None:
    with FakeOpenAIServer([text("done")]) as server:
        model = OpenAIChatModel("llama3", base_url=server.base_url)
        settings = ModelSettings(temperature=0.0, seed=3)
        options = Options(model=model, model_settings=settings, tools=[], setting_sources=[])
        result = await run("hi", options)
    assert result.subtype == "success"
    body = server.bodies("/chat/completions")[0]
    assert body["temperature"] == 0.0 and body["seed"] == 3


def test_cli_flags_build_model_settings() -> None:
    parser = argparse.ArgumentParser()
    add_agent_arguments(parser)
    args = parser.parse_args(
        [
            "--temperature",
            "0.3",
            "--tool-choice",
            "none",
            "--setting",
            "seed=7",
            "--setting",
            'provider={"order": ["groq"]}',
            "--setting",
            "header.X-Title=loopwright",
            "--setting",
            "parallel_tool_calls=false",
        ]
    )
    settings = options_from_args(args).model_settings
    assert settings == ModelSettings(
        temperature=0.3,
        tool_choice="none",
        seed=7,
        parallel_tool_calls=False,
        extra_body={"provider": {"order": ["groq"]}},
        extra_headers={"X-Title": "loopwright"},
    )


def test_cli_without_settings_leaves_them_unset() -> None:
    parser = argparse.ArgumentParser()
    add_agent_arguments(parser)
    assert options_from_args(parser.parse_args([])).model_settings is None


# How the error for each bad --setting says to write it.
FIX_FOR_SETTING = {
    "seed": "e.g. --setting seed=7",
    "seed=x": "seed takes a whole number, e.g. seed=7",
    "parallel_tool_calls=maybe": "parallel_tool_calls takes true or false",
}


@pytest.mark.parametrize(
    ("assignment", "needle"),
    [("seed", "KEY=VALUE"), ("seed=x", "seed=x"), ("parallel_tool_calls=maybe", "true or false")],
)
def test_bad_setting_flags_say_how_to_write_them(assignment: str, needle: str) -> None:
    parser = argparse.ArgumentParser()
    add_agent_arguments(parser)
    with pytest.raises(ConfigurationError, match=needle) as caught:
        options_from_args(parser.parse_args(["--setting", assignment]))
    assert_says_what_to_do(caught.value, FIX_FOR_SETTING[assignment])


def test_out_of_range_temperature_says_the_range() -> None:
    with pytest.raises(ConfigurationError, match="from 0 to 2"):
        ModelSettings(temperature=3)


def test_agent_settings_replace_only_the_fields_they_set() -> None:
    parent = ModelSettings(temperature=0.2, seed=1)
    merged = parent.merged(ModelSettings(tool_choice="none", seed=9))
    assert merged == ModelSettings(temperature=0.2, tool_choice="none", seed=9)


def _fields(settings: ModelSettings) -> dict[str, object]:
    return {name: getattr(settings, name) for name in settings.set_fields()}
