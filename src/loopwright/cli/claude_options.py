"""Claude Code's flags (:mod:`loopwright.cli.claude_flags`) as Options fields.

Kept apart from the flag table so that what a flag *means* reads in one place: settings
files' ``model``, ``--settings`` permissions, ``--json-schema`` as ``output_format`` ….
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from loopwright.cli.claude_flags import (
    json_or_file,
    mcp_servers_from_flags,
    setting_sources_from_flag,
)
from loopwright.errors import ConfigurationError
from loopwright.options import AgentDefinition, Options


def with_claude_flags(options: Options, args: argparse.Namespace) -> Options:
    """``options`` (from loopwright's own flags) with Claude Code's flags applied."""
    changes: dict[str, Any] = {}
    settings = _settings_flag(args.settings)
    sources = setting_sources_from_flag(args.setting_sources)
    if sources is not None:
        changes["setting_sources"] = sources
    model = options.model or settings.get("model") or _model_from_settings(options, sources)
    if model:
        changes["model"] = model
    changes.update(_permission_changes(options, args, settings))
    if isinstance(settings.get("env"), dict):
        changes["env"] = {**{str(k): str(v) for k, v in settings["env"].items()}, **options.env}
    servers = mcp_servers_from_flags(args.mcp_config)
    if servers:
        changes["mcp_servers"] = {**options.mcp_servers, **servers}
    if args.json_schema:
        schema = json_or_file(args.json_schema, "--json-schema")
        changes["output_format"] = {"type": "json_schema", "schema": schema}
    if args.fallback_model:
        changes["fallback_model"] = args.fallback_model
    if args.agents:
        changes["agents"] = agents_from_json(json_or_file(args.agents, "--agents"), "--agents")
    changes.update(_thinking_changes(args))
    if args.include_hook_events:
        changes["include_hook_events"] = True
    if args.resume_session_at:
        changes["resume_at"] = args.resume_session_at
    changes.update(_prompt_file_changes(args))
    return dataclasses.replace(options, **changes) if changes else options


def agents_from_json(data: Any, where: str) -> dict[str, AgentDefinition]:
    """Claude Code's agents JSON (``{"name": {description, prompt, tools, model}}``)."""
    if not isinstance(data, dict):
        raise ConfigurationError(f'{where}: expected {{"name": {{"description", "prompt"}}}}')
    agents: dict[str, AgentDefinition] = {}
    known = {"description", "prompt", "tools", "model", "maxTurns", "max_turns"}
    for name, raw in data.items():
        if not isinstance(raw, dict) or "description" not in raw or "prompt" not in raw:
            raise ConfigurationError(f"{where}: agent {name!r} needs a description and a prompt")
        fields = {k: v for k, v in raw.items() if k in known}
        agents[str(name)] = AgentDefinition(
            description=str(fields["description"]),
            prompt=str(fields["prompt"]),
            tools=list(fields["tools"]) if fields.get("tools") is not None else None,
            model=fields.get("model"),
            max_turns=fields.get("maxTurns", fields.get("max_turns")),
        )
    return agents


def _settings_flag(value: str | None) -> dict[str, Any]:
    if value is None:
        return {}
    data = json_or_file(value, "--settings")
    if not isinstance(data, dict):
        raise ConfigurationError('--settings: expected a JSON object such as {"model": "..."}')
    return data


def _model_from_settings(options: Options, sources: list[str] | None) -> str | None:
    """``"model"`` from settings.json files, lowest precedence first, as Claude Code reads it.
    The environment (LOOPWRIGHT_MODEL) and --model come before it."""
    if os.environ.get("LOOPWRIGHT_MODEL"):
        return None
    from loopwright.settings.load import SETTING_SOURCES, settings_files

    wanted = list(sources if sources is not None else (options.setting_sources or SETTING_SOURCES))
    cwd = Path(options.cwd or os.getcwd()).resolve()
    found: str | None = None
    for _, path, _ in settings_files(cwd, wanted, Path.home()):  # pyright: ignore[reportArgumentType]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # the settings loader reports unreadable files when the session opens
        if isinstance(data, dict) and isinstance(data.get("model"), str) and data["model"]:
            found = str(data["model"])
    return found


def _permission_changes(
    options: Options, args: argparse.Namespace, settings: dict[str, Any]
) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    permissions = settings.get("permissions")
    if isinstance(permissions, dict):
        allow = [str(r) for r in permissions.get("allow") or []]
        deny = [str(r) for r in permissions.get("deny") or []]
        changes["allowed_tools"] = [*options.allowed_tools, *allow]
        changes["disallowed_tools"] = [*options.disallowed_tools, *deny]
        mode = permissions.get("defaultMode")
        if mode and options.permission_mode is None:
            changes["permission_mode"] = mode
    if args.dangerously_skip_permissions:
        changes["permission_mode"] = "bypassPermissions"
    return changes


def _thinking_changes(args: argparse.Namespace) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if args.max_thinking_tokens is not None:
        if args.max_thinking_tokens <= 0:
            changes["thinking"] = {"type": "disabled"}
        else:
            changes["thinking"] = {"type": "enabled", "budget_tokens": args.max_thinking_tokens}
    if args.thinking is not None:
        changes["thinking"] = {"type": args.thinking}
    if args.effort is not None:
        changes["effort"] = args.effort
    if args.task_budget is not None:
        changes["task_budget"] = args.task_budget
    return changes


def _prompt_file_changes(args: argparse.Namespace) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for flag, field in (
        ("system_prompt_file", "system_prompt"),
        ("append_system_prompt_file", "append_system_prompt"),
    ):
        path = getattr(args, flag)
        if path:
            try:
                changes[field] = Path(path).read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigurationError(
                    f"--{flag.replace('_', '-')}: cannot read {path} ({exc.strerror})"
                ) from exc
    return changes
