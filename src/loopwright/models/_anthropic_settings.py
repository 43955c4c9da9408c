"""ModelSettings and server tools on the Anthropic Messages API.

What the API has no field for (``seed``, a reasoning summary level, free-form metadata)
is refused by :func:`check_settings` when the session starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loopwright.errors import ConfigurationError
from loopwright.models.settings import (
    SERVER_TOOL_NAMES,
    ModelSettings,
    ServerTool,
    unsupported,
)

_API = "the Anthropic Messages API"
_SERVICE_TIERS = ("auto", "standard_only")
# Short name → (tool definition, beta flag it needs or None).
_SERVER_TOOLS: dict[str, tuple[dict[str, Any], str | None]] = {
    "web_search": ({"type": "web_search_20250305", "name": "web_search"}, None),
    "web_fetch": ({"type": "web_fetch_20250910", "name": "web_fetch"}, "web-fetch-2025-09-10"),
    "code_execution": (
        {"type": "code_execution_20250825", "name": "code_execution"},
        "code-execution-2025-08-25",
    ),
}


def check_settings(settings: ModelSettings | None, server_tools: Sequence[ServerTool]) -> None:
    """Refuse, before the first request, what this API cannot carry."""
    if settings is not None:
        sampling = [
            name
            for name, value in (("temperature", settings.temperature), ("top_p", settings.top_p))
            if value is not None
        ]
        if sampling:
            # The current Messages API (anthropic 2.x request types) has no sampling
            # controls; older models behind compatible servers may still take them.
            raise unsupported(
                _API,
                sampling,
                "remove them, or send them through model_settings.extra_body (e.g. "
                "{'temperature': 0.2}) to a server that still accepts them",
            )
        refused: list[str] = []
        if settings.seed is not None:
            refused.append("seed")
        if settings.reasoning_summary is not None:
            raise unsupported(
                _API,
                ["reasoning_summary"],
                "set thinking={'type': 'adaptive', 'display': 'summarized' or 'omitted'} instead",
            )
        if settings.metadata and set(settings.metadata) - {"user_id"}:
            raise unsupported(
                _API,
                [f"metadata keys {sorted(set(settings.metadata) - {'user_id'})}"],
                "its metadata has only user_id; set model_settings.user instead",
            )
        if refused:
            raise unsupported(_API, refused)
        tier = settings.service_tier
        if tier is not None and tier not in _SERVICE_TIERS:
            raise ConfigurationError(
                f"service_tier={tier!r} is not offered by {_API}; use auto or standard_only"
            )
    for tool in server_tools:
        if isinstance(tool, str) and tool not in _SERVER_TOOLS:
            raise ConfigurationError(
                f"server tool {tool!r} is unknown for {_API}; use "
                f"{', '.join(SERVER_TOOL_NAMES)} or pass the tool's own definition as a dict"
            )


def server_tool_params(tools: Sequence[ServerTool]) -> tuple[list[dict[str, Any]], list[str]]:
    """Tool definitions for the hosted tools, and the beta flags they need."""
    params: list[dict[str, Any]] = []
    betas: list[str] = []
    for tool in tools:
        if isinstance(tool, str):
            check_settings(None, [tool])
            definition, beta = _SERVER_TOOLS[tool]
            params.append(dict(definition))
            if beta is not None and beta not in betas:
                betas.append(beta)
        else:
            params.append(dict(tool))
    return params, betas


def apply_settings(body: dict[str, Any], settings: ModelSettings) -> None:
    """Write the settings into a Messages request body (in place)."""
    check_settings(settings, [])
    if settings.stop is not None:
        body["stop_sequences"] = list(settings.stop)
    choice = _tool_choice(settings)
    if choice is not None and "tools" in body:
        body["tool_choice"] = choice
    if settings.service_tier is not None:
        body["service_tier"] = settings.service_tier
    user_id = settings.user or (settings.metadata or {}).get("user_id")
    if user_id:
        body["metadata"] = {"user_id": user_id}
    body.update(settings.extra_body)


def _tool_choice(settings: ModelSettings) -> dict[str, Any] | None:
    match settings.tool_choice:
        case None:
            choice: dict[str, Any] | None = None
        case "auto" | "any" | "none" as mode:
            choice = {"type": mode}
        case name:
            choice = {"type": "tool", "name": name}
    if settings.parallel_tool_calls is False:
        # The API's switch lives inside tool_choice ("none" has nothing to disable).
        choice = choice or {"type": "auto"}
        if choice["type"] != "none":
            choice["disable_parallel_tool_use"] = True
    return choice
