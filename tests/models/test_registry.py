"""Model strings, aliases and environment defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.registry import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL,
    describe_missing_model,
    resolve_model,
)
from loopwright.models.scripted import ScriptedModel

KEYS = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}


@pytest.mark.parametrize(
    ("spec", "cls", "name"),
    [
        ("anthropic:claude-opus-5", AnthropicModel, "claude-opus-5"),
        ("openai:gpt-5.4", OpenAIResponsesModel, "gpt-5.4"),
        ("openai-chat:gpt-4.1", OpenAIChatModel, "gpt-4.1"),
        ("sonnet", AnthropicModel, "claude-sonnet-5-5"),
        ("opus", AnthropicModel, "claude-opus-5-5"),
        ("haiku", AnthropicModel, "claude-haiku-5-5"),
        ("anthropic:haiku", AnthropicModel, "claude-haiku-5-5"),
        ("claude-sonnet-4-5", AnthropicModel, "claude-sonnet-4-5"),
        ("gpt-5.5", OpenAIResponsesModel, "gpt-5.5"),
        ("o3", OpenAIResponsesModel, "o3"),
    ],
)
def test_model_strings(spec: str, cls: type, name: str) -> None:
    model = resolve_model(spec, env=KEYS)
    assert isinstance(model, cls) and model.name == name


def test_alias_override_from_environment() -> None:
    env = {**KEYS, "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-8"}
    assert resolve_model("opus", env=env).name == "claude-opus-4-8"


def test_openai_chat_with_a_local_base_url_needs_no_key() -> None:
    model = resolve_model("openai-chat:llama3.1:8b?base_url=http://127.0.0.1:11434/v1", env={})
    assert isinstance(model, OpenAIChatModel) and model.name == "llama3.1:8b"
    assert model.max_tokens_field == "max_tokens"
    via_env = resolve_model("openai-chat:qwen3", env={"OPENAI_BASE_URL": "http://h/v1"})
    assert isinstance(via_env, OpenAIChatModel)
    keyed = resolve_model(
        "openai-chat:x?base_url=https://openrouter.ai/api/v1&api_key_env=OPENROUTER_API_KEY",
        env={"OPENROUTER_API_KEY": "sk-or"},
    )
    assert isinstance(keyed, OpenAIChatModel)


def test_scripted_file(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- text: hello\n")
    assert isinstance(resolve_model(f"scripted:{script}", env={}), ScriptedModel)


def test_model_objects_pass_through() -> None:
    model = ScriptedModel([])
    assert resolve_model(model) is model


def test_defaults_follow_the_environment() -> None:
    assert resolve_model(None, env={"LOOPWRIGHT_MODEL": "openai:o4-mini", **KEYS}).name == (
        "o4-mini"
    )
    assert resolve_model(None, env=KEYS).name == DEFAULT_ANTHROPIC_MODEL
    assert resolve_model(None, env={"OPENAI_API_KEY": "o"}).name == DEFAULT_OPENAI_MODEL


def test_nothing_configured_says_what_to_set() -> None:
    with pytest.raises(ConfigurationError) as caught:
        resolve_model(None, env={})
    message = str(caught.value)
    assert message == describe_missing_model()
    for needle in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL", "scripted:FILE"):
        assert needle in message


# What the error for each bad model string tells the user to write or set instead.
FIX_FOR_MODEL_STRING = {
    "mystery-model": "use anthropic:<id>, openai:<id>",
    "anthropic:": "write anthropic:<model id>",
    "openai:gpt-5.5": "set it, or choose another model",
    "sonnet": "set it, or choose another model",
    "openai-chat:gpt-5.5": "openai-chat:<id>?base_url=http://localhost:11434/v1",
    "openai-chat:x?base=1": "supported: base_url, api_key_env",
}


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("mystery-model", "cannot tell which provider"),
        ("anthropic:", "names no model"),
        ("openai:gpt-5.5", "OPENAI_API_KEY"),
        ("sonnet", "ANTHROPIC_API_KEY"),
        ("openai-chat:gpt-5.5", "base_url"),
        ("openai-chat:x?base=1", "unknown option"),
    ],
)
def test_bad_strings_explain_themselves(spec: str, needle: str) -> None:
    with pytest.raises(ConfigurationError, match=needle) as caught:
        resolve_model(spec, env={})
    assert_says_what_to_do(caught.value, FIX_FOR_MODEL_STRING[spec])
