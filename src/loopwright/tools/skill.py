"""Skills: ``skills/<name>/SKILL.md`` instructions the model loads when a task needs them.

Only each skill's name and description go into the system prompt (cheap); the body is read
from disk by the ``Skill`` tool when the model decides to use the skill, together with the
skill's directory so it can Read the extra files a skill ships (scripts, templates).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from loopwright.errors import ConfigurationError, SettingsError
from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.frontmatter import parse_frontmatter

SKILL_TOOL_NAME = "Skill"
SKILL_FILE = "SKILL.md"
# Exact names only: letters, digits and - _ . plus ':' for plugin-qualified names.
_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Skill:
    """A discovered skill; its body stays on disk until the Skill tool reads it."""

    name: str
    description: str
    path: Path
    # ``disable-model-invocation: true`` in the frontmatter: not listed, not loadable by the model.
    model_invocable: bool = True

    @property
    def base_dir(self) -> Path:
        return self.path.parent


@dataclass(frozen=True, slots=True)
class SkillCatalog:
    """Skills found in skill directories, and the skill files that could not be used (and why)."""

    skills: tuple[Skill, ...]
    problems: tuple[str, ...] = ()

    def names(self) -> list[str]:
        return [skill.name for skill in self.skills]


def discover_skills(directories: Iterable[Path]) -> SkillCatalog:
    """``<dir>/<name>/SKILL.md`` for each directory; a later directory's skill replaces an
    earlier one of the same name (pass them lowest priority first)."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob(f"*/{SKILL_FILE}")):
            try:
                skill = _read_skill(path)
            except SettingsError as exc:
                problems.append(str(exc))
                continue
            found[skill.name] = skill
    return SkillCatalog(tuple(found.values()), tuple(problems))


def _read_skill(path: Path) -> Skill:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it ({exc.strerror})") from exc
    meta, _ = parse_frontmatter(text, str(path))
    name = str(meta.get("name") or path.parent.name).strip()
    if not _SKILL_NAME.match(name):
        raise SettingsError(f"{path}: skill name {name!r} must be letters, digits, '-' or '_'")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SettingsError(f"{path}: 'description' is required (when should it be used?)")
    invocable = meta.get("disable-model-invocation") is not True
    return Skill(name, " ".join(description.split()), path.resolve(), invocable)


def select_skills(
    skills: Sequence[Skill], names: Sequence[str] | Literal["all"] | None
) -> list[Skill]:
    """The ``skills=`` option: None or "all" keeps every skill; a list keeps exactly those."""
    if names is None or names == "all":
        return list(skills)
    if isinstance(names, str):
        raise ConfigurationError(f'skills={names!r}: pass a list of skill names, "all" or None')
    for name in names:
        if not _SKILL_NAME.match(name):
            raise ConfigurationError(
                f"skills: {name!r} is not a skill name; list exact names "
                '(use "all" instead of wildcards)'
            )
    wanted = set(names)
    return [skill for skill in skills if skill.name in wanted]


def skills_listing(skills: Sequence[Skill]) -> str:
    """The system-prompt block that tells the model which skills exist ("" when none)."""
    visible = [skill for skill in skills if skill.model_invocable]
    if not visible:
        return ""
    lines = "\n".join(f"- {skill.name}: {skill.description}" for skill in visible)
    return (
        "# Skills\n"
        f"When a task matches one of these skills, call the {SKILL_TOOL_NAME} tool with its "
        "name before starting; it returns the skill's full instructions.\n"
        f"{lines}"
    )


@dataclass(frozen=True, slots=True)
class SkillTool(ToolBase):
    """The ``Skill`` tool: loads one skill's instructions. Build it with :func:`make_skill_tool`."""

    skills: tuple[Skill, ...]
    name: str = SKILL_TOOL_NAME
    read_only: bool = True

    @property
    def description(self) -> str:
        names = ", ".join(s.name for s in self.skills if s.model_invocable) or "(none)"
        return (
            "Load a skill's full instructions (listed under Skills in the system prompt) and "
            f"follow them. Available skills: {names}."
        )

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name"},
                "args": {"type": "string", "description": "Optional arguments for the skill"},
            },
            "required": ["skill"],
            "additionalProperties": False,
        }

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        requested = str(input.get("skill", "")).strip().lstrip("/")
        skill = next((s for s in self.skills if s.name == requested), None)
        if skill is None or not skill.model_invocable:
            names = ", ".join(s.name for s in self.skills if s.model_invocable) or "(none)"
            return ToolResult.error(f"unknown skill {requested!r}; available skills: {names}")
        try:
            from loopwright.tools.function_tool import run_blocking  # start-up

            text: str = await run_blocking(skill.path.read_text, "utf-8")
            _, body = parse_frontmatter(text, str(skill.path))
        except (OSError, SettingsError) as exc:
            return ToolResult.error(f"skill {skill.name!r} could not be loaded: {exc}")
        return ToolResult(render_skill(skill, body, input.get("args")))


def render_skill(skill: Skill, body: str, args: Any = None) -> str:
    """What the model reads when it loads a skill: where its files are, then its body."""
    arguments = str(args).strip() if args else ""
    if "$ARGUMENTS" in body:
        body = body.replace("$ARGUMENTS", arguments)
    elif arguments:
        body = f"{body}\n\nARGUMENTS: {arguments}"
    return (
        f"Base directory for this skill: {skill.base_dir}\n"
        "Paths in the skill are relative to that directory; Read them as needed.\n\n"
        f"{body}"
    )


def make_skill_tool(skills: Sequence[Skill]) -> SkillTool:
    return SkillTool(tuple(skills))
