"""Server configs and .mcp.json: the four transports, ${VAR} expansion, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError, SettingsError
from loopwright.mcp import (
    HttpServerConfig,
    InvalidServerConfig,
    SseServerConfig,
    StdioServerConfig,
    expand_env,
    load_mcp_json,
    parse_server_config,
)


def test_command_without_type_is_stdio() -> None:
    config = parse_server_config("fs", {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}})
    assert config == StdioServerConfig("npx", ("-y", "pkg"), {"A": "1"})


def test_http_and_streamable_http_alias_and_sse() -> None:
    http = parse_server_config("a", {"type": "http", "url": "http://h/mcp", "headers": {"X": "1"}})
    alias = parse_server_config("b", {"type": "streamable-http", "url": "http://h/mcp"})
    sse = parse_server_config("c", {"type": "sse", "url": "http://h/sse"})
    assert http == HttpServerConfig("http://h/mcp", {"X": "1"})
    assert alias == HttpServerConfig("http://h/mcp")
    assert sse == SseServerConfig("http://h/sse")


def test_missing_url_says_what_is_required() -> None:
    with pytest.raises(ConfigurationError, match="'url' is required") as caught:
        parse_server_config("remote", {"type": "http"})
    assert_says_what_to_do(caught.value, '"url": "https://example.com/mcp"')


def test_env_expansion_with_default() -> None:
    env = {"TOKEN": "abc"}
    assert expand_env("Bearer ${TOKEN}", env) == "Bearer abc"
    assert expand_env("${MISSING:-fallback}", env) == "fallback"
    with pytest.raises(ConfigurationError, match="MISSING is not set"):
        expand_env("${MISSING}", env)


def test_mcp_json_is_loaded_with_env_expansion(tmp_path: Path) -> None:
    file = tmp_path / ".mcp.json"
    file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "api": {
                        "type": "http",
                        "url": "https://${HOST}/mcp",
                        "headers": {"Authorization": "Bearer ${API_TOKEN}"},
                    },
                    "local": {"command": "server", "env": {"KEY": "${API_TOKEN}"}},
                    "broken": {"command": "server", "args": ["${NOT_SET}"]},
                }
            }
        )
    )
    configs = load_mcp_json(file, env={"HOST": "example.com", "API_TOKEN": "t0k"})
    assert configs["api"] == HttpServerConfig(
        "https://example.com/mcp", {"Authorization": "Bearer t0k"}
    )
    assert configs["local"] == StdioServerConfig("server", env={"KEY": "t0k"})
    broken = configs["broken"]
    assert isinstance(broken, InvalidServerConfig)
    assert "NOT_SET is not set" in broken.error


def test_missing_mcp_json_means_no_servers(tmp_path: Path) -> None:
    assert load_mcp_json(tmp_path / ".mcp.json") == {}


def test_malformed_mcp_json_names_the_file(tmp_path: Path) -> None:
    file = tmp_path / ".mcp.json"
    file.write_text("{not json")
    with pytest.raises(SettingsError, match=r"\.mcp\.json: not valid JSON"):
        load_mcp_json(file)
