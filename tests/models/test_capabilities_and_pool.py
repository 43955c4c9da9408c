"""One capabilities table, overridable in the model string and in code; one SDK client per
process for each provider, base URL and key."""

from __future__ import annotations

import asyncio

import pytest

from loopwright import Options, run
from loopwright.context.tokens import context_window
from loopwright.errors import ConfigurationError
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.capabilities import capabilities_for, register_capabilities
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.registry import resolve_model
from loopwright.models.scripted import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from .conftest import ask, collect

KEYS = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}


async def test_model_string_makes_an_alias_a_reasoning_model_with_its_window() -> None:
    with FakeOpenAIServer([text("ok")]) as server:
        spec = f"openai:my-alias?reasoning=true&context_window=400000&base_url={server.base_url}"
        model = resolve_model(spec, env=KEYS)
        assert isinstance(model, OpenAIResponsesModel)
        await collect(model, ask(effort="high"))
        await model.aclose()
    assert model.context_window == 400_000 and model.supports_reasoning
    body = server.bodies("/v1/responses")[0]
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"]["effort"] == "high"


def test_bedrock_and_router_ids_find_their_row() -> None:
    for model_id in ("openai.gpt-5.5", "openai/gpt-5.5", "us.anthropic.claude-opus-5-5-v1:0"):
        found = capabilities_for(model_id)
        assert found.reasoning and found.context_window == 1_000_000, model_id
    model = OpenAIResponsesModel("openai.gpt-5.5", api_key="k")
    assert model.supports_reasoning


def test_capabilities_can_be_registered_in_code() -> None:
    register_capabilities("acme-coder", reasoning=True, context_window=64_000)
    model = OpenAIChatModel("acme-coder-7b", base_url="http://127.0.0.1:1/v1")
    assert model.supports_reasoning and model.context_window == 64_000
    assert context_window("openai-chat:acme-coder-7b") == 64_000


@pytest.mark.parametrize(
    "model_id",
    ["claude-sonnet-5-5", "claude-haiku-4-5", "gpt-5.5", "gpt-5", "gpt-4o", "o3", "gpt-4.1"],
)
def test_the_context_meter_and_the_providers_agree(model_id: str) -> None:
    provider = resolve_model(model_id, env=KEYS)
    assert getattr(provider, "context_window", None) == context_window(model_id)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("openai:x?reasoning=maybe", "use true or false"),
        ("openai:x?context_window=lots", "positive whole number"),
        ("anthropic:claude-x?window=1", "supported: base_url, api_key_env, context_window"),
    ],
)
def test_bad_capability_overrides_say_what_to_write(spec: str, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle):
        resolve_model(spec, env=KEYS)


async def test_model_strings_share_one_sdk_client() -> None:
    first = resolve_model("anthropic:claude-sonnet-5-5", env=KEYS)
    second = resolve_model("sonnet", env=KEYS)
    other_key = resolve_model("anthropic:claude-sonnet-5-5", env={"ANTHROPIC_API_KEY": "b"})
    assert isinstance(first, AnthropicModel) and isinstance(second, AnthropicModel)
    assert isinstance(other_key, AnthropicModel)
    clients = [m._clients.get() for m in (first, second, other_key)]  # pyright: ignore[reportPrivateUsage]
    assert clients[0] is clients[1] and clients[0] is not clients[2]
    for model in (first, second, other_key):
        await model.aclose()
    assert clients[0].is_closed() and clients[2].is_closed()


@pytest.mark.parametrize("path", ["ours", "sdk"])
async def test_a_shared_client_stays_open_until_its_last_session_closes(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = dict(KEYS)
    if path == "sdk":  # an auth token, not an API key: only the SDK sends with it
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token")
        credentials = {"ANTHROPIC_AUTH_TOKEN": "token"}
    with FakeAnthropicServer([text("a"), text("b")]) as server:
        env = {**credentials, "ANTHROPIC_BASE_URL": server.base_url}
        first = resolve_model("anthropic:claude-sonnet-5-5", env=env)
        second = resolve_model("anthropic:claude-sonnet-5-5", env=env)
        await asyncio.gather(collect(first, ask()), collect(second, ask()))
        sources = {"ours": "_http_clients", "sdk": "_clients"}
        client = getattr(first, sources[path]).get()
        assert ("x-api-key" in server.requests[0].headers) == (path == "ours")
        await first.aclose()
        assert not client.is_closed()  # the second session still uses it
        await second.aclose()
        assert client.is_closed()


async def test_sessions_on_model_strings_close_their_share_but_not_user_models() -> None:
    with FakeOpenAIServer([text("a"), text("b")]) as server:
        mine = OpenAIChatModel("llama3", base_url=server.base_url)
        my_client = mine._clients.get()  # pyright: ignore[reportPrivateUsage]
        await run("hi", Options(model=mine, tools=[], setting_sources=[]))
        assert not my_client.is_closed()  # the user built it; the user closes it
        spec = f"openai-chat:llama3?base_url={server.base_url}"
        result = await run("hi", Options(model=spec, tools=[], setting_sources=[]))
        assert result.subtype == "success"
        await mine.aclose()
        assert my_client.is_closed()


async def test_default_max_tokens_stays_within_the_models_output_limit() -> None:
    with FakeAnthropicServer([text("a"), text("b")]) as server:
        older = AnthropicModel("claude-3-5-haiku-latest", api_key="k", base_url=server.base_url)
        current = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=server.base_url)
        await collect(older, ask())
        await collect(current, ask())
    assert [body["max_tokens"] for body in server.bodies("/v1/messages")] == [8_192, 32_000]
