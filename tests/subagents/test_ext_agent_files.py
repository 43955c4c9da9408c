"""Subagent definitions from .claude/agents/*.md and .loopwright/agents/*.md files."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.errors import SettingsError
from loopwright.options import AgentDefinition
from loopwright.subagents.files import load_agent_files, parse_agent_file, parse_frontmatter


def write_agent(directory: Path, filename: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / filename
    path.write_text(text)
    return path


def test_full_frontmatter_becomes_an_agent_definition(tmp_path: Path) -> None:
    path = write_agent(
        tmp_path,
        "reviewer.md",
        "---\n"
        "name: code-reviewer\n"
        "description: Reviews code for quality\n"
        "tools: Read, Grep, Glob\n"
        "model: sonnet\n"
        "effort: high\n"
        "maxTurns: 7\n"
        "permissionMode: plan\n"
        "---\n"
        "You are a careful reviewer.\n",
    )
    name, definition = parse_agent_file(path)
    assert name == "code-reviewer"
    assert definition == AgentDefinition(
        description="Reviews code for quality",
        prompt="You are a careful reviewer.",
        tools=["Read", "Grep", "Glob"],
        model="sonnet",
        effort="high",
        max_turns=7,
        permission_mode="plan",
    )


def test_tool_specifiers_with_commas_stay_whole(tmp_path: Path) -> None:
    path = write_agent(
        tmp_path,
        "git.md",
        "---\ndescription: Git helper\ntools: Read, Bash(git log, git diff)\n---\nGo.",
    )
    _, definition = parse_agent_file(path)
    assert definition.tools == ["Read", "Bash(git log, git diff)"]


def test_yaml_list_of_tools_and_name_from_the_file_stem(tmp_path: Path) -> None:
    path = write_agent(
        tmp_path, "tester.md", "---\ndescription: Runs tests\ntools: [Bash, Read]\n---\n"
    )
    name, definition = parse_agent_file(path)
    assert name == "tester"
    assert definition.tools == ["Bash", "Read"]
    assert definition.prompt == ""


def test_omitted_tools_means_inherit(tmp_path: Path) -> None:
    path = write_agent(tmp_path, "any.md", "---\ndescription: Anything\n---\nHelp.")
    assert parse_agent_file(path)[1].tools is None


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ("name: x", "'description' is required"),
        ("description: d\neffort: extreme", "effort 'extreme' is not one of"),
        ("description: d\nmaxTurns: 0", "maxTurns must be a whole number"),
        ("description: d\npermissionMode: yolo", "permissionMode 'yolo' is not one of"),
    ],
)
def test_invalid_fields_name_the_file_and_the_problem(
    tmp_path: Path, frontmatter: str, message: str
) -> None:
    path = write_agent(tmp_path, "bad.md", f"---\n{frontmatter}\n---\nbody")
    with pytest.raises(SettingsError, match=message) as raised:
        parse_agent_file(path)
    assert str(path) in str(raised.value)


def test_load_skips_broken_files_and_later_directories_win(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    write_agent(user, "helper.md", "---\ndescription: user helper\n---\nU")
    write_agent(project, "helper.md", "---\ndescription: project helper\n---\nP")
    write_agent(project, "broken.md", "---\ndescription: [oops\n---\n")
    loaded = load_agent_files([user, project, tmp_path / "absent"])
    assert list(loaded.agents) == ["helper"]
    assert loaded.agents["helper"].description == "project helper"
    assert len(loaded.problems) == 1 and "broken.md" in loaded.problems[0]


def test_frontmatter_absent_or_unclosed() -> None:
    assert parse_frontmatter("just text", "f.md") == ({}, "just text")
    with pytest.raises(SettingsError, match="never closed"):
        parse_frontmatter("---\nname: x\n", "f.md")
