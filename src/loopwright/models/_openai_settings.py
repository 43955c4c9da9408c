"""ModelSettings and server tools on the two OpenAI APIs (and compatible servers).

Responses has no ``stop`` or ``seed``; Chat Completions has no reasoning summary and no
hosted tools. Both are refused by ``check_*`` when the session starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from loopwright.errors import ConfigurationError
from loopwright.models.settings import ModelSettings, ServerTool, unsupported

Api = Literal["responses", "chat"]
_NAMES: dict[Api, str] = {
    "responses": "the OpenAI Responses API",
    "chat": "the Chat Completions API",
}
_RESPONSES_TOOLS: dict[str, dict[str, Any]] = {
    "web_search": {"type": "web_search"},
    "code_execution": {"type": "code_interpreter", "container": {"type": "auto"}},
}


def check_settings(
    api: Api, settings: ModelSettings | None, server_tools: Sequence[ServerTool], reasoning: bool
) -> None:
    """Refuse, before the first request, what ``api`` cannot carry."""
    name = _NAMES[api]
    if settings is not None:
        refused = [field for field, given in _unsupported_fields(api, settings) if given]
        if refused:
            raise unsupported(name, refused)
        if settings.reasoning_summary is not None and not reasoning:
            raise ConfigurationError(
                "reasoning_summary is set, but this model is not known to reason; if it "
                "does, add ?reasoning=true to the model string (or capabilities=… in code)"
            )
    for tool in server_tools:
        if api == "chat":
            raise ConfigurationError(
                f"{name} has no hosted (server) tools; use the Responses API "
                "(openai:<id>) for web search, or pass a provider's own tool field "
                "through model_settings.extra_body"
            )
        if isinstance(tool, str) and tool not in _RESPONSES_TOOLS:
            raise ConfigurationError(
                f"server tool {tool!r} is not offered by {name}; use "
                f"{', '.join(_RESPONSES_TOOLS)} or pass the tool's own definition as a dict"
            )


def _unsupported_fields(api: Api, settings: ModelSettings) -> list[tuple[str, bool]]:
    if api == "responses":
        return [("stop", settings.stop is not None), ("seed", settings.seed is not None)]
    return [("reasoning_summary", settings.reasoning_summary is not None)]


def server_tool_params(tools: Sequence[ServerTool]) -> list[dict[str, Any]]:
    """Responses tool definitions for the hosted tools."""
    return [dict(_RESPONSES_TOOLS[t]) if isinstance(t, str) else dict(t) for t in tools]


def apply_settings(api: Api, body: dict[str, Any], settings: ModelSettings) -> None:
    """Write the settings into a request body (in place)."""
    for field in ("temperature", "top_p", "parallel_tool_calls", "service_tier", "seed"):
        value = getattr(settings, field)
        if value is not None:
            body[field] = value
    if settings.stop is not None:
        body["stop"] = list(settings.stop)
    choice = _tool_choice(api, settings)
    if choice is not None and "tools" in body:
        body["tool_choice"] = choice
    if settings.metadata:
        body["metadata"] = dict(settings.metadata)
    if settings.user is not None:
        # Responses replaced ``user`` by safety_identifier; compatible chat servers know
        # only ``user``.
        body["safety_identifier" if api == "responses" else "user"] = settings.user
    if settings.reasoning_summary is not None and api == "responses":
        reasoning: dict[str, Any] = body.setdefault("reasoning", {})
        if settings.reasoning_summary == "none":
            reasoning.pop("summary", None)
        else:
            reasoning["summary"] = settings.reasoning_summary
    body.update(settings.extra_body)


def _tool_choice(api: Api, settings: ModelSettings) -> str | dict[str, Any] | None:
    match settings.tool_choice:
        case None:
            return None
        case "auto" | "none" as mode:
            return mode
        case "any":
            return "required"
        case name:
            if api == "responses":
                return {"type": "function", "name": name}
            return {"type": "function", "function": {"name": name}}
