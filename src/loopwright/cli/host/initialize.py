"""The ``initialize`` control request: what it changes in the session, and the answer.

The SDKs send hooks, agents and (TypeScript) the system prompt, JSON schema and MCP
servers here rather than as flags. The answer carries what the SDKs check
(``hooks_applied``, ``hook_on_failure_supported``, ``mcp_servers_applied`` …) and the
fields the real CLI sends for ``get_server_info()`` users: commands, output style, models,
account, pid, version, permission mode.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from loopwright.cli.claude_options import agents_from_json
from loopwright.cli.host.callbacks import hook_matchers
from loopwright.cli.host.control import ControlChannel
from loopwright.cli.host.versions import CLAUDE_CODE_PROTOCOL_VERSION, loopwright_version
from loopwright.options import Options


@dataclass(slots=True)
class Applied:
    """What initialize brought besides Options fields: the SDK servers to connect."""

    sdk_servers: list[str] = field(default_factory=list[str])
    manifests: dict[str, Any] = field(default_factory=dict[str, Any])


def apply_initialize(
    options: Options, request: dict[str, Any], control: ControlChannel, applied: Applied
) -> Options:
    """``options`` with the initialize request's hooks, agents, prompts and servers."""
    changes: dict[str, Any] = {}
    hooks = hook_matchers(control, request.get("hooks"))
    if hooks:
        merged = {event: list(entries) for event, entries in (options.hooks or {}).items()}
        for event, entries in hooks.items():
            merged.setdefault(event, []).extend(entries)
        changes["hooks"] = merged
    if isinstance(request.get("agents"), dict) and request["agents"]:
        agents = agents_from_json(request["agents"], "initialize.agents")
        changes["agents"] = {**(options.agents or {}), **agents}
    changes.update(_typescript_fields(options, request, applied))
    return dataclasses.replace(options, **changes) if changes else options


def _typescript_fields(
    options: Options, request: dict[str, Any], applied: Applied
) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    prompt = request.get("systemPrompt")
    if isinstance(prompt, list):
        changes["system_prompt"] = "\n\n".join(str(p) for p in prompt)
    elif isinstance(prompt, str):
        changes["system_prompt"] = prompt
    if isinstance(request.get("appendSystemPrompt"), str):
        changes["append_system_prompt"] = request["appendSystemPrompt"]
    if isinstance(request.get("jsonSchema"), dict):
        changes["output_format"] = {"type": "json_schema", "schema": request["jsonSchema"]}
    servers = request.get("mcpServers")
    if isinstance(servers, dict) and servers:
        external = {
            k: v for k, v in servers.items() if not (isinstance(v, dict) and v.get("type") == "sdk")
        }
        applied.sdk_servers += [k for k in servers if k not in external]
        changes["mcp_servers"] = {**options.mcp_servers, **external}
    for name in request.get("sdkMcpServers") or []:
        if name not in applied.sdk_servers:
            applied.sdk_servers.append(str(name))
    if isinstance(request.get("sdkMcpServerManifests"), dict):
        applied.manifests.update(request["sdkMcpServerManifests"])
    if isinstance(request.get("disallowedTools"), list):
        changes["disallowed_tools"] = [
            *options.disallowed_tools,
            *map(str, request["disallowedTools"]),
        ]
    return changes


def initialize_response(options: Options, *, hooks_applied: bool) -> dict[str, Any]:
    chosen = options.model
    model = chosen if isinstance(chosen, str) or chosen is None else chosen.name
    return {
        "commands": [],
        "agents": [
            {"name": name, "description": agent.description, "model": agent.model}
            for name, agent in (options.agents or {}).items()
        ],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [
            {
                "value": model or "default",
                "displayName": model or "default (LOOPWRIGHT_MODEL or the API keys set)",
                "description": "the model loopwright runs (provider:id)",
            }
        ],
        "account": {"apiProvider": "loopwright", "tokenSource": "none", "apiKeySource": "none"},
        "pid": os.getpid(),
        "claude_code_version": CLAUDE_CODE_PROTOCOL_VERSION,
        "loopwright_version": loopwright_version(),
        "current_permission_mode": options.permission_mode or "default",
        "hooks_applied": hooks_applied,
        # A proxied PreToolUse/UserPromptSubmit hook that fails blocks (fail closed).
        "hook_on_failure_supported": True,
        "mcp_servers_applied": True,
        "settings_applied": True,
        "disallowed_tools_applied": True,
        "managed_settings_applied": False,
        "capabilities": {"interrupt": True, "can_use_tool": True, "sdk_mcp": True},
    }
