"""Markdown files with YAML frontmatter that extend the agent: subagents and skills.

``.claude/agents/*.md`` and ``.loopwright/agents/*.md`` define subagents (frontmatter:
name, description, tools, model, effort, maxTurns, permissionMode; the body is the
prompt). Existing Claude Code files work as they are. A broken file is skipped and reported
as a problem rather than failing the session: one typo should not take every agent away.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs

from loopwright.errors import SettingsError
from loopwright.options import AgentDefinition
from loopwright.options.validation import EFFORTS
from loopwright.tools.frontmatter import parse_frontmatter
from loopwright.types import PERMISSION_MODES


def split_tool_list(value: Any, source: str) -> list[str] | None:
    """``Read, Grep, Bash(git log, git diff)`` or a YAML list -> tool names; None if absent."""
    if value is None:
        return None
    if isinstance(value, list):
        return [str(item).strip() for item in cast(list[Any], value) if str(item).strip()]
    if not isinstance(value, str):
        raise SettingsError(f"{source}: 'tools' must be a comma-separated string or a list")
    names: list[str] = []
    current: list[str] = []
    depth = 0  # commas inside Bash(...) specifiers do not separate tools
    for char in value:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            names.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    names.append("".join(current).strip())
    return [name for name in names if name]


def parse_agent_file(path: Path) -> tuple[str, AgentDefinition]:
    """One agent file -> (name, definition); raises SettingsError naming the file and field."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"{source}: cannot read it ({exc.strerror})") from exc
    meta, body = parse_frontmatter(text, source)
    name = str(meta.get("name") or path.stem).strip()
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SettingsError(f"{source}: 'description' is required (when should this agent run?)")
    definition = AgentDefinition(
        description=description.strip(),
        prompt=body,
        tools=split_tool_list(meta.get("tools"), source),
        model=_optional_str(meta.get("model")),
        effort=_choice(meta.get("effort"), EFFORTS, "effort", source),
        max_turns=_max_turns(meta.get("maxTurns", meta.get("max_turns")), source),
        permission_mode=_choice(
            meta.get("permissionMode", meta.get("permission_mode")),
            PERMISSION_MODES,
            "permissionMode",
            source,
        ),
    )
    return name, definition


@dataclass(frozen=True, slots=True)
class LoadedAgents:
    """Agents found in agent directories, and the files that could not be used (and why)."""

    agents: dict[str, AgentDefinition]
    problems: tuple[str, ...] = ()


def load_agent_files(directories: Iterable[Path], *, checkout: Path | None = None) -> LoadedAgents:
    """Every ``*.md`` in the directories; a later directory's agent replaces an earlier one's.

    Pass user directories first and project directories last, so the project wins, as in
    Claude Code. Programmatic ``agents=`` should then override the result. An agent file
    under ``checkout`` (the repository) may not choose a model endpoint or key variable.
    """
    agents: dict[str, AgentDefinition] = {}
    problems: list[str] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            try:
                name, definition = parse_agent_file(path)
            except SettingsError as exc:
                problems.append(str(exc))
                continue
            if checkout is not None and path.resolve().is_relative_to(checkout.resolve()):
                problem = checkout_model_problem(definition.model)
                if problem is not None:
                    problems.append(f"{path}: {problem}")
                    definition = dataclasses.replace(definition, model=None)
            agents[name] = definition
    return LoadedAgents(agents, tuple(problems))


# Where a model's requests go and which variable its key is read from are the user's to
# choose: in a repository's file they would send any environment variable (a cloud key, a
# CI token) to a server the repository names.
_USER_ONLY_MODEL_OPTIONS = ("base_url", "api_key_env")


def checkout_model_problem(model: str | None) -> str | None:
    """Why a repository's file may not use this model string, or None if it may."""
    if model is None or "?" not in model:
        return None
    named = [key for key in parse_qs(model.partition("?")[2]) if key in _USER_ONLY_MODEL_OPTIONS]
    if not named:
        return None
    return (
        f"model {model.partition('?')[0]!r} with {' and '.join(named)} is ignored: a "
        "repository's agent file may not choose where requests go or which environment "
        "variable holds the key; the agent uses the session's model. To use that endpoint, "
        "put the agent in ~/.claude/agents/ or pass it in Options(agents=...)"
    )


def _optional_str(value: Any) -> str | None:
    return str(value).strip() if value not in (None, "") else None


def _choice(value: Any, allowed: tuple[str, ...], key: str, source: str) -> Any:
    if value in (None, ""):
        return None
    if value not in allowed:
        raise SettingsError(f"{source}: {key} {value!r} is not one of {', '.join(allowed)}")
    return value


def _max_turns(value: Any, source: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SettingsError(f"{source}: maxTurns must be a whole number of at least 1")
    return value
