"""MCP server configurations: the four transports, parsing, and ``.mcp.json`` files.

Users write the same shapes as in Claude Code's ``mcpServers`` (a dict per server); we parse
them once into frozen dataclasses so the manager never guesses at a dict's keys. A config
that cannot work becomes an :class:`InvalidServerConfig` carrying the reason, so one bad
entry is reported as a failed server instead of breaking the whole session.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from loopwright.errors import ConfigurationError, SettingsError
from loopwright.mcp.sdk_server import SdkServerConfig
from loopwright.redact import redact_text


@dataclass(frozen=True, slots=True)
class StdioServerConfig:
    """A local server process spoken to over its stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    # Merged over a minimal safe environment (PATH, HOME, …), as the mcp package does.
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    cwd: str | None = None
    type: Literal["stdio"] = "stdio"


@dataclass(frozen=True, slots=True)
class SseServerConfig:
    """A remote server using the (legacy) HTTP+SSE transport."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    type: Literal["sse"] = "sse"


@dataclass(frozen=True, slots=True)
class HttpServerConfig:
    """A remote server using the streamable HTTP transport."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    # Makes the httpx2.AsyncClient the transport uses (called with headers=), as the mcp
    # package's httpx_client_factory (proxies, certificates, timeouts); None: its default.
    http_client_factory: Callable[..., Any] | None = None
    type: Literal["http"] = "http"


@dataclass(frozen=True, slots=True)
class InvalidServerConfig:
    """A config entry that cannot work; the manager reports it as a failed server."""

    error: str
    type: Literal["invalid"] = "invalid"


McpServerConfig: TypeAlias = (
    StdioServerConfig | SseServerConfig | HttpServerConfig | SdkServerConfig | InvalidServerConfig
)

_CONFIG_CLASSES = (
    StdioServerConfig,
    SseServerConfig,
    HttpServerConfig,
    SdkServerConfig,
    InvalidServerConfig,
)

# ${VAR} or ${VAR:-default}, as Claude Code expands them in .mcp.json.
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(value: str, env: Mapping[str, str] | None = None) -> str:
    """Replace ``${VAR}`` and ``${VAR:-default}`` with values from ``env`` (default: os.environ)."""
    source = os.environ if env is None else env

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in source:
            return source[name]
        if default is not None:
            return default
        raise ConfigurationError(
            f"environment variable {name} is not set; export it or write ${{{name}:-default}}"
        )

    return _ENV_REFERENCE.sub(substitute, value)


def parse_server_config(
    name: str, raw: Mapping[str, Any] | McpServerConfig, *, env: Mapping[str, str] | None = None
) -> McpServerConfig:
    """Turn one ``mcpServers`` entry into a config; raises ConfigurationError saying what to fix."""
    if isinstance(raw, _CONFIG_CLASSES):
        return raw
    if not isinstance(raw, Mapping):
        raise ConfigurationError(
            f"MCP server {name!r}: expected a dict such as "
            f'{{"type": "stdio", "command": "..."}}, got {type(raw).__name__}'
        )
    kind = str(raw.get("type") or ("stdio" if "command" in raw else ""))
    if kind == "stdio":
        return StdioServerConfig(
            command=expand_env(_required_str(name, raw, "command"), env),
            args=tuple(expand_env(str(a), env) for a in _list(name, raw, "args")),
            env={str(k): expand_env(str(v), env) for k, v in _dict(name, raw, "env").items()},
            cwd=expand_env(str(raw["cwd"]), env) if raw.get("cwd") else None,
        )
    if kind in ("sse", "http", "streamable-http"):
        url = expand_env(_required_str(name, raw, "url"), env)
        headers = {str(k): expand_env(str(v), env) for k, v in _dict(name, raw, "headers").items()}
        if kind == "sse":
            return SseServerConfig(url, headers)
        return HttpServerConfig(url, headers)
    if kind == "sdk":
        instance = raw.get("instance")
        if isinstance(instance, SdkServerConfig):
            return instance
        raise ConfigurationError(
            f"MCP server {name!r}: an sdk server needs the object returned by "
            "create_sdk_mcp_server(name, tools=[...]); pass that object itself as the config"
        )
    raise ConfigurationError(
        f"MCP server {name!r}: unknown type {raw.get('type')!r}; "
        "use 'stdio' (with command), 'sse' or 'http' (with url), or an sdk server"
    )


def parse_server_configs(
    raw: Mapping[str, Mapping[str, Any] | McpServerConfig], *, env: Mapping[str, str] | None = None
) -> dict[str, McpServerConfig]:
    """Parse every entry; entries that cannot work become InvalidServerConfig, not exceptions."""
    parsed: dict[str, McpServerConfig] = {}
    for name, entry in raw.items():
        try:
            parsed[name] = parse_server_config(name, entry, env=env)
        except ConfigurationError as exc:
            parsed[name] = InvalidServerConfig(redact_text(str(exc)))
    return parsed


def load_mcp_json(
    path: str | Path, *, env: Mapping[str, str] | None = None
) -> dict[str, McpServerConfig]:
    """Read a ``.mcp.json`` file (``{"mcpServers": {...}}``); a missing file means no servers."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"{file}: cannot read it ({exc.strerror})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{file}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise SettingsError(f'{file}: expected {{"mcpServers": {{"name": {{...}}}}}} at the top')
    return parse_server_configs(servers, env=env)


def _required_str(name: str, raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        example = "https://example.com/mcp" if key == "url" else "npx"
        raise ConfigurationError(
            f"MCP server {name!r}: {key!r} is required and must be a string; add it to the "
            f'server\'s config, e.g. "{key}": "{example}"'
        )
    return value


def _list(name: str, raw: Mapping[str, Any], key: str) -> list[Any]:
    value = raw.get(key) or []
    if not isinstance(value, list | tuple):
        raise ConfigurationError(f"MCP server {name!r}: {key!r} must be a list of strings")
    return list(value)


def _dict(name: str, raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"MCP server {name!r}: {key!r} must be an object of strings")
    return dict(value)
