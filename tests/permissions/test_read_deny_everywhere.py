"""Read deny rules hold for every route by which a file's contents can reach the model:
the Grep and Glob tools (whatever path or pattern), and shell readers through the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options, collect, tool_results

SECRET = "TOP-SECRET-MARKER"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text(f"token={SECRET}\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hello')\n# token here\n")
    (tmp_path / "nested" / "deep").mkdir(parents=True)
    (tmp_path / "nested" / "deep" / ".env").write_text(f"API={SECRET}\n")
    return tmp_path


async def _run_tool(project: Path, name: str, **input: object) -> str:
    model = ScriptedModel([tool_call(name, **input), text("done")])
    options = base_options(
        model,
        cwd=project,
        tools=["Grep", "Glob", "Bash"],
        disallowed_tools=["Read(./secrets/**)", "Read(**/.env)"],
        permission_mode="dontAsk",
    )
    return tool_results(await collect("go", options))[0].text


@pytest.mark.parametrize(
    "grep_input",
    [
        {"pattern": SECRET},
        {"pattern": SECRET, "path": "."},
        {"pattern": SECRET, "output_mode": "content"},
        {"pattern": SECRET, "output_mode": "content", "-n": False, "-C": 2},
        {"pattern": SECRET, "output_mode": "count"},
        {"pattern": "token", "output_mode": "content", "glob": "**/*"},
        {"pattern": "API", "path": "nested", "output_mode": "content"},
    ],
    ids=["default", "dot", "content", "content-context", "count", "glob-into", "nested-env"],
)
async def test_grep_never_shows_files_a_read_deny_rule_covers(
    project: Path, grep_input: dict[str, object]
) -> None:
    output = await _run_tool(project, "Grep", **grep_input)
    assert SECRET not in output
    assert "secrets/key" not in output and ".env" not in output


async def test_grep_still_shows_the_files_no_rule_covers(project: Path) -> None:
    output = await _run_tool(project, "Grep", pattern="token", output_mode="content")
    assert "src/app.py:2:# token here" in output
    assert SECRET not in output


@pytest.mark.parametrize(
    "pattern",
    ["**/*", "secrets/*", "s[e]crets/**", "{secrets,src}/*", "**/key", "**/.env", "*/*"],
)
async def test_glob_never_lists_files_a_read_deny_rule_covers(project: Path, pattern: str) -> None:
    output = await _run_tool(project, "Glob", pattern=pattern)
    assert "secrets/key" not in output and ".env" not in output


@pytest.mark.parametrize(
    "command",
    [
        "grep -r TOP .",
        "rg TOP",
        "cut -c1- secrets/key",
        "date -f secrets/key",
        "cmp -l secrets/key /dev/null",
        "git diff --no-index secrets/key src/app.py",
        "grep -f secrets/key src/app.py",
        "tac nested/deep/.env",
    ],
)
async def test_shell_readers_do_not_print_denied_files(project: Path, command: str) -> None:
    output = await _run_tool(project, "Bash", command=command)
    assert SECRET not in output


async def test_grep_pages_past_hidden_matches_without_counting_them(project: Path) -> None:
    # Many matches in the denied folder must neither show nor use up the head_limit window.
    (project / "secrets" / "many.txt").write_text("token\n" * 500)
    output = await _run_tool(
        project, "Grep", pattern="token", output_mode="content", head_limit=1, path="."
    )
    assert "src/app.py:2:# token here" in output
    assert "secrets" not in output
