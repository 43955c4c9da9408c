"""Model strings → Model objects, with defaults from the environment.

Accepted forms::

    anthropic:<id>           Claude (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)
    openai:<id>              OpenAI Responses API (OPENAI_API_KEY; OPENAI_BASE_URL optional)
    openai-chat:<id>         Chat Completions: OpenAI or any compatible server
    openai-chat:<id>?base_url=http://localhost:11434/v1&api_key_env=OLLAMA_KEY
    openai:<alias>?reasoning=true&context_window=400000   capabilities the table lacks
    scripted:<file>          a YAML/JSON script played offline (ScriptedModel)
    test                     calls every tool once, then answers (TestModel; offline);
                             test?call_tools=Read,Glob limits the tools it calls
    sonnet | opus | haiku    current Claude models (ANTHROPIC_DEFAULT_<FAMILY>_MODEL overrides)
    claude-…                 bare ids: claude-* → anthropic, gpt-* / o1 / o3 / o4 → openai

For ``openai-chat`` the base URL comes from ``?base_url=`` or OPENAI_BASE_URL, and the key
from the variable named by ``?api_key_env=`` or OPENAI_API_KEY; a local server (any base
URL) needs no key. Every provider string takes ``?base_url=``, ``?api_key_env=`` and the
capability keys (reasoning, context_window, max_output_tokens, vision), and prices for a
model the price table lacks: ``?input_price=0.3&output_price=1.2`` (dollars per million
tokens; see ``string_prices``).

Providers made from a model string share their HTTP clients per process for each provider,
base URL and key (see ``_client_pool``), and are closed by the session that made them.
A provider with an API key sends through our own HTTP client; its SDK is imported only
where that cannot serve (see ``_transport``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from urllib.parse import parse_qs

from loopwright.errors import ConfigurationError
from loopwright.models.base import Model
from loopwright.models.capabilities import (
    CAPABILITY_KEYS,
    Capabilities,
    capabilities_for,
    parse_capability_overrides,
)
from loopwright.models.string_prices import PRICE_KEYS, take_prices

ALIASES: dict[str, str] = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
}
DEFAULT_ANTHROPIC_MODEL = ALIASES["sonnet"]
DEFAULT_OPENAI_MODEL = "gpt-5.5"
_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-", "codex-")


def describe_missing_model() -> str:
    """What to set when no model is configured (shown by the CLI as-is)."""
    return (
        "No model is configured. Set one of:\n"
        "  ANTHROPIC_API_KEY   to use Claude (default model "
        f"{DEFAULT_ANTHROPIC_MODEL})\n"
        f"  OPENAI_API_KEY      to use OpenAI (default model {DEFAULT_OPENAI_MODEL})\n"
        "  LOOPWRIGHT_MODEL    to pick a model, e.g. anthropic:claude-opus-5-5, openai:gpt-5.5,\n"
        "                      or openai-chat:llama3.1?base_url=http://localhost:11434/v1\n"
        "or name a model: Options(model=...) in Python, --model on the command line. To run "
        "offline without any key, use the model scripted:FILE (a YAML/JSON script of "
        "responses)."
    )


def resolve_model(spec: str | Model | None, *, env: Mapping[str, str] | None = None) -> Model:
    """The Model for ``spec``; ``None`` picks from LOOPWRIGHT_MODEL, then the API keys set."""
    environment: Mapping[str, str] = os.environ if env is None else env
    if spec is None:
        configured = environment.get("LOOPWRIGHT_MODEL", "").strip()
        if configured:
            return resolve_model(configured, env=environment)
        if environment.get("ANTHROPIC_API_KEY"):
            return _anthropic(DEFAULT_ANTHROPIC_MODEL, {}, environment)
        if environment.get("OPENAI_API_KEY"):
            return _openai(DEFAULT_OPENAI_MODEL, {}, environment)
        raise ConfigurationError(describe_missing_model())
    if not isinstance(spec, str):
        return spec
    text = spec.strip()
    if not text:
        raise ConfigurationError("the model string is empty; " + _FORMS)
    provider, sep, rest = text.partition(":")
    if sep and provider in _PROVIDERS:
        if not rest or rest.startswith("?"):
            raise ConfigurationError(
                f"model string {spec!r} names no model after '{provider}:'; "
                f"write {provider}:<model id>"
            )
        if provider == "scripted":
            return _scripted(rest)
        model, options = _split_options(rest, provider)
        return _PROVIDERS[provider](model, options, environment)
    if text == "test" or text.startswith("test?"):
        return _test_model(text)
    model, options = _split_options(text, "")
    bare = _alias(model, environment)
    if bare.startswith("claude-"):
        return _anthropic(bare, options, environment)
    if bare.startswith(_OPENAI_PREFIXES):
        return _openai(bare, options, environment)
    raise ConfigurationError(f"cannot tell which provider serves model {spec!r}; " + _FORMS)


_FORMS = (
    "use anthropic:<id>, openai:<id>, openai-chat:<id>[?base_url=URL], scripted:<file>, "
    "or an alias (sonnet, opus, haiku)"
)
_OPTION_KEYS = ("base_url", "api_key_env", *CAPABILITY_KEYS, *PRICE_KEYS)


def _split_options(rest: str, provider: str) -> tuple[str, dict[str, str]]:
    """``<id>?key=value&…`` → the id and its options (capabilities, base_url, key variable)."""
    model, _, query = rest.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query).items()}
    unknown = set(options) - set(_OPTION_KEYS)
    if unknown:
        where = f"{provider}:{rest}" if provider else rest
        raise ConfigurationError(
            f"unknown option(s) {sorted(unknown)} in {where}; supported: " + ", ".join(_OPTION_KEYS)
        )
    return model, take_prices(model, options)


def _alias(name: str, env: Mapping[str, str]) -> str:
    if name in ALIASES:
        override = env.get(f"ANTHROPIC_DEFAULT_{name.upper()}_MODEL", "").strip()
        return override or ALIASES[name]
    return name


# Any of these lets the Anthropic SDK find credentials (a key, a token, or a profile).
_ANTHROPIC_CREDENTIALS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
)


def _capabilities(model: str, options: Mapping[str, str], where: str) -> Capabilities:
    return capabilities_for(model, **parse_capability_overrides(options, where))


def _anthropic(model: str, options: Mapping[str, str], env: Mapping[str, str]) -> Model:
    from loopwright.models.anthropic import AnthropicModel

    model = _alias(model, env)
    key_variable = options.get("api_key_env", "ANTHROPIC_API_KEY")
    base_url = options.get("base_url") or env.get("ANTHROPIC_BASE_URL") or None
    credentials = (key_variable, *_ANTHROPIC_CREDENTIALS[1:])
    if not any(env.get(name) for name in credentials):
        raise ConfigurationError(
            f"anthropic:{model} needs {key_variable}; set it, or choose another "
            "model (scripted:FILE runs offline)"
        )
    return AnthropicModel(
        model,
        api_key=env.get(key_variable) or None,
        base_url=base_url,
        capabilities=_capabilities(model, options, f"anthropic:{model}"),
        share_client=True,
    )


def _openai(model: str, options: Mapping[str, str], env: Mapping[str, str]) -> Model:
    from loopwright.models.openai_responses import OpenAIResponsesModel

    key_variable = options.get("api_key_env", "OPENAI_API_KEY")
    key = env.get(key_variable)
    if not key:
        raise ConfigurationError(
            f"openai:{model} needs {key_variable}; set it, or choose another model "
            "(scripted:FILE runs offline)"
        )
    return OpenAIResponsesModel(
        model,
        api_key=key,
        base_url=options.get("base_url") or env.get("OPENAI_BASE_URL") or None,
        capabilities=_capabilities(model, options, f"openai:{model}"),
        share_client=True,
    )


def _openai_chat(model: str, options: Mapping[str, str], env: Mapping[str, str]) -> Model:
    from loopwright.models.openai_chat import OpenAIChatModel

    base_url = options.get("base_url") or env.get("OPENAI_BASE_URL") or None
    key_variable = options.get("api_key_env", "OPENAI_API_KEY")
    key = env.get(key_variable) or None
    if key is None and base_url is None:
        raise ConfigurationError(
            f"openai-chat:{model} needs {key_variable} for api.openai.com, or a base_url for a "
            "compatible server (openai-chat:<id>?base_url=http://localhost:11434/v1 or "
            "OPENAI_BASE_URL)"
        )
    return OpenAIChatModel(
        model,
        api_key=key,
        base_url=base_url,
        capabilities=_capabilities(model, options, f"openai-chat:{model}"),
        share_client=True,
    )


def _test_model(text: str) -> Model:
    """``test`` or ``test?call_tools=Read,Glob`` (the tools it calls; empty for none)."""
    from loopwright.models.test_model import TestModel

    options = {
        k: v[-1] for k, v in parse_qs(text.partition("?")[2], keep_blank_values=True).items()
    }
    unknown = set(options) - {"call_tools"}
    if unknown:
        raise ConfigurationError(
            f"unknown option(s) {sorted(unknown)} in {text}; supported: call_tools"
        )
    if "call_tools" not in options:
        return TestModel()
    return TestModel(call_tools=[n for n in options["call_tools"].split(",") if n])


def _scripted(path: str) -> Model:
    from loopwright.models.scripted import ScriptedModel

    return ScriptedModel.from_file(path)


_PROVIDERS: dict[str, Callable[[str, Mapping[str, str], Mapping[str, str]], Model]] = {
    "anthropic": _anthropic,
    "openai": _openai,
    "openai-chat": _openai_chat,
    "scripted": lambda path, options, env: _scripted(path),
}
