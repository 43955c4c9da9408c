"""The one table of what a model can do: reasoning, context window, output limit, vision.

Every provider and the context meter read it; nothing else keeps its own list. Rows are
matched by model-id prefix (the longest wins), compared without a provider prefix and
without a vendor namespace, so ``openai.gpt-5.5`` (Bedrock-style) and
``openai/gpt-5.5`` (OpenRouter) find the ``gpt-5.5`` row.

A model the table does not know, or knows wrongly (a local alias, a fine-tune), is
described in its model string — ``openai:my-alias?reasoning=true&context_window=400000`` —
or in code with :func:`register_capabilities` or a provider's ``capabilities=`` argument.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from loopwright.errors import ConfigurationError


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a model accepts. ``max_output_tokens`` None = unknown (no local cap)."""

    context_window: int = 128_000
    max_output_tokens: int | None = None
    reasoning: bool = False
    vision: bool = False


DEFAULT = Capabilities()
_CLAUDE_5 = Capabilities(1_000_000, 128_000, reasoning=True, vision=True)

# Longest matching prefix wins. Older ids keep the figures their providers published.
_TABLE: dict[str, Capabilities] = {
    "claude-": Capabilities(200_000, 64_000, reasoning=True, vision=True),
    "claude-3-": Capabilities(200_000, 8_192, reasoning=False, vision=True),
    "claude-3-7": Capabilities(200_000, 64_000, reasoning=True, vision=True),
    "claude-opus-4": Capabilities(200_000, 32_000, reasoning=True, vision=True),
    "claude-fable-5": _CLAUDE_5,
    "claude-mythos-5": _CLAUDE_5,
    "claude-opus-5": _CLAUDE_5,
    "claude-sonnet-5": _CLAUDE_5,
    "claude-haiku-5": _CLAUDE_5,
    "gpt-6": Capabilities(1_000_000, 128_000, reasoning=True, vision=True),
    "gpt-5": Capabilities(400_000, 128_000, reasoning=True, vision=True),
    "gpt-5.4": Capabilities(1_000_000, 128_000, reasoning=True, vision=True),
    "gpt-5.5": Capabilities(1_000_000, 128_000, reasoning=True, vision=True),
    "gpt-5.6": Capabilities(1_000_000, 128_000, reasoning=True, vision=True),
    "gpt-5-chat": Capabilities(128_000, 16_384, reasoning=False, vision=True),
    "gpt-4.1": Capabilities(1_047_576, 32_768, reasoning=False, vision=True),
    "gpt-4o": Capabilities(128_000, 16_384, reasoning=False, vision=True),
    "gpt-4-turbo": Capabilities(128_000, 4_096, reasoning=False, vision=True),
    "chatgpt-": Capabilities(128_000, 16_384, reasoning=False, vision=True),
    "o1": Capabilities(200_000, 100_000, reasoning=True, vision=True),
    "o3": Capabilities(200_000, 100_000, reasoning=True, vision=True),
    "o4": Capabilities(200_000, 100_000, reasoning=True, vision=True),
    "codex-": Capabilities(400_000, 128_000, reasoning=True, vision=True),
    "gemini-": Capabilities(1_048_576, 65_536, reasoning=True, vision=True),
    "deepseek-reasoner": Capabilities(128_000, 64_000, reasoning=True),
    "deepseek-r1": Capabilities(128_000, 32_768, reasoning=True),
    "qwq": Capabilities(131_072, 32_768, reasoning=True),
}

# Keys a model string or a caller may override, with the parser for a string value.
_BOOLEAN = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


_PROVIDER_PREFIXES = ("anthropic:", "openai:", "openai-chat:")


def bare_model_id(model: str) -> str:
    """The id without provider or vendor namespace and without a ``[1m]`` suffix."""
    bare = model.lower().removesuffix("[1m]")
    for prefix in _PROVIDER_PREFIXES:
        bare = bare.removeprefix(prefix)
    # "meta-llama/llama-3.3" and "openai/gpt-5.5" (routers), "us.anthropic.claude-…" and
    # "openai.gpt-5.5" (Bedrock): namespaces, not part of the id. A version dot
    # ("gpt-5.5") has no all-letter word before it.
    bare = bare.rsplit("/", 1)[-1]
    while True:
        head, sep, tail = bare.partition(".")
        if not (sep and head.isalpha() and tail):
            return bare
        bare = tail


def capabilities_for(model: str, **overrides: Any) -> Capabilities:
    """The table's row for ``model`` with ``overrides`` (keyword values) applied."""
    bare = bare_model_id(model)
    best = max((p for p in _TABLE if bare.startswith(p)), key=len, default=None)
    found = _TABLE[best] if best is not None else DEFAULT
    if model.endswith("[1m]"):
        found = dataclasses.replace(found, context_window=1_000_000)
    given = {k: v for k, v in overrides.items() if v is not None}
    return dataclasses.replace(found, **given) if given else found


def register_capabilities(model_prefix: str, **fields: Any) -> None:
    """Describe every model id starting with ``model_prefix`` (fields not given keep the
    values the table had for that prefix)."""
    unknown = set(fields) - set(CAPABILITY_KEYS)
    if unknown:
        raise ConfigurationError(
            f"unknown capability {sorted(unknown)}; use {', '.join(CAPABILITY_KEYS)}"
        )
    key = model_prefix.lower()
    base = _TABLE.get(key) or capabilities_for(key)
    _TABLE[key] = dataclasses.replace(base, **fields)


CAPABILITY_KEYS = tuple(f.name for f in dataclasses.fields(Capabilities))


def parse_capability_overrides(options: Mapping[str, str], where: str) -> dict[str, Any]:
    """Capability keys from a model string's query (``?reasoning=true&context_window=…``)."""
    parsed: dict[str, Any] = {}
    for key, value in options.items():
        if key not in CAPABILITY_KEYS:
            continue
        if key in ("reasoning", "vision"):
            flag = _BOOLEAN.get(value.lower())
            if flag is None:
                raise ConfigurationError(f"{key}={value!r} in {where}: use true or false")
            parsed[key] = flag
        else:
            if not value.isdigit() or int(value) <= 0:
                raise ConfigurationError(
                    f"{key}={value!r} in {where}: use a positive whole number of tokens"
                )
            parsed[key] = int(value)
    return parsed
