"""Skills: discovery from skill directories, selection, the listing, and the Skill tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError
from loopwright.tools.base import SessionState, ToolContext
from loopwright.tools.skill import discover_skills, make_skill_tool, select_skills, skills_listing


def write_skill(root: Path, folder: str, frontmatter: str, body: str = "Do the thing.") -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n{body}\n")
    return path


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(SessionState(tmp_path), "toolu_skill")


def test_discovers_name_and_description_from_frontmatter(tmp_path: Path) -> None:
    write_skill(tmp_path, "security-check", "name: security-check\ndescription: Scan for vulns")
    catalog = discover_skills([tmp_path])
    [skill] = catalog.skills
    assert (skill.name, skill.description) == ("security-check", "Scan for vulns")
    assert skill.base_dir == (tmp_path / "security-check").resolve()
    assert catalog.problems == ()


def test_name_defaults_to_the_directory_name(tmp_path: Path) -> None:
    write_skill(tmp_path, "release-notes", "description: Draft release notes")
    assert discover_skills([tmp_path]).names() == ["release-notes"]


def test_later_directory_overrides_an_earlier_skill_of_the_same_name(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    write_skill(user, "lint", "description: user version")
    write_skill(project, "lint", "description: project version")
    [skill] = discover_skills([user, project, tmp_path / "missing"]).skills
    assert skill.description == "project version"


def test_broken_skill_files_are_reported_not_fatal(tmp_path: Path) -> None:
    write_skill(tmp_path, "good", "description: fine")
    write_skill(tmp_path, "no-description", "name: no-description")
    write_skill(tmp_path, "bad-yaml", "description: [unclosed")
    catalog = discover_skills([tmp_path])
    assert catalog.names() == ["good"]
    assert len(catalog.problems) == 2
    assert any("'description' is required" in p for p in catalog.problems)


def test_select_skills_none_all_or_exact_names(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write_skill(tmp_path, name, f"description: skill {name}")
    skills = discover_skills([tmp_path]).skills
    assert [s.name for s in select_skills(skills, None)] == ["a", "b", "c"]
    assert [s.name for s in select_skills(skills, "all")] == ["a", "b", "c"]
    assert [s.name for s in select_skills(skills, ["c", "a", "unknown"])] == ["a", "c"]
    assert select_skills(skills, []) == []


def test_select_skills_rejects_wildcards_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match='use "all" instead of wildcards'):
        select_skills([], ["*"])


def test_listing_names_and_describes_each_skill(tmp_path: Path) -> None:
    write_skill(tmp_path, "deploy", "description: Deploy the app")
    write_skill(tmp_path, "hidden", "description: Manual only\ndisable-model-invocation: true")
    listing = skills_listing(discover_skills([tmp_path]).skills)
    assert "- deploy: Deploy the app" in listing
    assert "Skill tool" in listing
    assert "hidden" not in listing
    assert skills_listing([]) == ""


async def test_skill_tool_loads_the_body_and_names_the_base_directory(
    tmp_path: Path, ctx: ToolContext
) -> None:
    write_skill(tmp_path, "deploy", "description: Deploy", "Run scripts/deploy.sh then verify.")
    tool = make_skill_tool(discover_skills([tmp_path]).skills)
    result = await tool.call({"skill": "deploy"}, ctx)
    assert result.is_error is False
    text = str(result.content)
    assert f"Base directory for this skill: {(tmp_path / 'deploy').resolve()}" in text
    assert text.endswith("Run scripts/deploy.sh then verify.")
    assert "description:" not in text


async def test_skill_body_is_read_on_demand(tmp_path: Path, ctx: ToolContext) -> None:
    path = write_skill(tmp_path, "deploy", "description: Deploy", "old body")
    tool = make_skill_tool(discover_skills([tmp_path]).skills)
    path.write_text("---\ndescription: Deploy\n---\nnew body\n")
    result = await tool.call({"skill": "deploy"}, ctx)
    assert str(result.content).endswith("new body")


async def test_skill_arguments_fill_the_placeholder_or_are_appended(
    tmp_path: Path, ctx: ToolContext
) -> None:
    write_skill(tmp_path, "greet", "description: Greet", "Say hello to $ARGUMENTS.")
    write_skill(tmp_path, "plain", "description: Plain", "Body.")
    tool = make_skill_tool(discover_skills([tmp_path]).skills)
    greet = await tool.call({"skill": "greet", "args": "Ada"}, ctx)
    plain = await tool.call({"skill": "plain", "args": "--fast"}, ctx)
    assert str(greet.content).endswith("Say hello to Ada.")
    assert str(plain.content).endswith("ARGUMENTS: --fast")


async def test_unknown_or_hidden_skill_is_an_error_listing_available_ones(
    tmp_path: Path, ctx: ToolContext
) -> None:
    write_skill(tmp_path, "deploy", "description: Deploy")
    write_skill(tmp_path, "hidden", "description: Manual\ndisable-model-invocation: true")
    tool = make_skill_tool(discover_skills([tmp_path]).skills)
    unknown = await tool.call({"skill": "nope"}, ctx)
    hidden = await tool.call({"skill": "hidden"}, ctx)
    assert unknown.is_error and "available skills: deploy" in str(unknown.content)
    assert hidden.is_error
    assert_says_what_to_do(hidden.content, "available skills: deploy")
