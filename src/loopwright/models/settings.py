"""Sampling and request settings a user sets once and every provider maps to its own wire.

``ModelSettings`` holds the portable ones; a provider that has no field for a setting
refuses it when the session starts (``check_settings``) with a message naming the
provider and the way out, instead of dropping it. ``extra_headers`` and ``extra_body``
pass anything else through untouched (OpenRouter routing, Groq's reasoning format, Z.ai
thinking, …).

``server_tools`` are the providers' hosted tools (the provider runs them, not loopwright):
a short name from :data:`SERVER_TOOL_NAMES` or the provider's own tool dict, sent as is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from loopwright.errors import ConfigurationError

ToolChoiceMode = Literal["auto", "any", "none"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]
# "web_search", "web_fetch", "code_execution", or a provider's own tool definition.
ServerTool: TypeAlias = str | Mapping[str, Any]
SERVER_TOOL_NAMES = ("web_search", "web_fetch", "code_execution")
REASONING_SUMMARIES: tuple[ReasoningSummary, ...] = ("auto", "concise", "detailed", "none")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSettings:
    """Settings sent with every request; ``None`` leaves the provider's default.

    ``tool_choice``: "auto", "any" (must call some tool), "none", or a tool's name (must
    call that tool). ``user`` identifies the end user to the provider (abuse monitoring);
    ``metadata`` is key/value data the provider stores with the request.
    """

    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] | None = None
    tool_choice: ToolChoiceMode | str | None = None
    parallel_tool_calls: bool | None = None
    service_tier: str | None = None
    seed: int | None = None
    reasoning_summary: ReasoningSummary | None = None
    metadata: Mapping[str, str] | None = None
    user: str | None = None
    extra_headers: Mapping[str, str] = field(default_factory=dict[str, str])
    extra_body: Mapping[str, Any] = field(default_factory=dict[str, Any])

    def __post_init__(self) -> None:
        # A bare string would be sent as one stop sequence per character.
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        elif self.stop is not None:
            object.__setattr__(self, "stop", tuple(self.stop))
        _check_ranges(self)

    def set_fields(self) -> list[str]:
        """The portable settings given (not None), by name, for error messages."""
        return [
            f.name
            for f in dataclasses.fields(self)
            if f.name not in ("extra_headers", "extra_body") and getattr(self, f.name) is not None
        ]

    def merged(self, override: ModelSettings | None) -> ModelSettings:
        """These settings with every field ``override`` sets replacing ours (per agent)."""
        if override is None:
            return self
        changes = {
            f.name: getattr(override, f.name)
            for f in dataclasses.fields(override)
            if getattr(override, f.name) not in (None, {})
        }
        return dataclasses.replace(self, **changes)


def _check_ranges(settings: ModelSettings) -> None:
    if settings.temperature is not None and not 0 <= settings.temperature <= 2:
        raise ConfigurationError(
            f"temperature={settings.temperature} is out of range; use a number from 0 to 2"
        )
    if settings.top_p is not None and not 0 < settings.top_p <= 1:
        raise ConfigurationError(f"top_p={settings.top_p} is out of range; use (0, 1]")
    if settings.tool_choice is not None and not settings.tool_choice.strip():
        raise ConfigurationError("tool_choice is empty; use auto, any, none or the name of a tool")
    summary = settings.reasoning_summary
    if summary is not None and summary not in REASONING_SUMMARIES:
        raise ConfigurationError(
            f"reasoning_summary={summary!r} is not one of {', '.join(REASONING_SUMMARIES)}"
        )


def unsupported(provider: str, names: Sequence[str], hint: str = "") -> ConfigurationError:
    """The error for settings a provider has no field for (raised at session start)."""
    listed = ", ".join(names)
    advice = hint or (
        "remove them from model_settings, or pass the provider's own field through "
        "model_settings.extra_body if it has one"
    )
    return ConfigurationError(f"{provider} does not support {listed}; {advice}")


def parse_setting(settings: ModelSettings, assignment: str) -> ModelSettings:
    """``KEY=VALUE`` (the CLI's ``--setting``) applied to ``settings``.

    Known keys are converted to their field's type; any other key goes to ``extra_body``
    with its value parsed as JSON when it is JSON (``provider={"order":["groq"]}``).
    """
    import json

    key, sep, value = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigurationError(
            f"--setting {assignment!r} is not KEY=VALUE; e.g. --setting seed=7"
        )
    converters: dict[str, Any] = {
        "temperature": float,
        "top_p": float,
        "seed": int,
        "parallel_tool_calls": _flag,
        "stop": _stop_list,
    }
    if key in ("extra_headers", "extra_body", "metadata"):
        raise ConfigurationError(f"--setting {key}=… is not supported; use --setting KEY=VALUE")
    if key.startswith("header."):
        headers = {**settings.extra_headers, key.removeprefix("header."): value}
        return dataclasses.replace(settings, extra_headers=headers)
    if key in {f.name for f in dataclasses.fields(ModelSettings)}:
        try:
            converted = converters.get(key, str)(value)
        except ValueError as exc:
            wanted = _WANTED.get(key, "text")
            raise ConfigurationError(
                f"--setting {assignment!r}: {exc}; {key} takes {wanted}"
            ) from exc
        return dataclasses.replace(settings, **{key: converted})
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    return dataclasses.replace(settings, extra_body={**settings.extra_body, key: parsed})


# What a --setting value must look like, for the error that refuses one.
_WANTED = {
    "temperature": "a number, e.g. temperature=0.2",
    "top_p": "a number, e.g. top_p=0.9",
    "seed": "a whole number, e.g. seed=7",
    "parallel_tool_calls": "true or false",
}


def _stop_list(value: str) -> tuple[str, ...]:
    return tuple(value.split(","))


def _flag(value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"{value!r} is not true or false")
