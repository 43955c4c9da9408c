"""build_permission_gate: options and settings combined into one session gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loopwright.hooks.runner import HookMatcher
from loopwright.session.permission_gate import build_permission_gate, session_working_dirs
from loopwright.settings.load import load_settings
from permissions.permission_helpers import Project, Recorder, decide


def settings_for(project: Project, data: dict[str, Any]) -> Any:
    (project.root / ".claude").mkdir(exist_ok=True)
    (project.root / ".claude" / "settings.json").write_text(json.dumps(data))
    return load_settings(project.root, ("project",), home=project.root.parent / "home")


async def test_options_and_settings_rules_combine(project: Project) -> None:
    settings = settings_for(
        project,
        {
            "permissions": {
                "allow": ["Bash(make *)"],
                "deny": ["Bash(make deploy)"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": [str(project.outside)],
            }
        },
    )
    gate = build_permission_gate(
        cwd=project.root,
        allowed_tools=["Bash(make deploy)", "WebFetch"],
        disallowed_tools=["Bash(make clean)"],
        settings=settings,
        can_use_tool=Recorder(),
    )
    assert gate.mode == "acceptEdits"
    assert (await decide(gate, "Bash", {"command": "make deploy"}, project.root))[0] == "deny"
    assert (await decide(gate, "Bash", {"command": "make clean"}, project.root))[0] == "deny"
    assert (await decide(gate, "Bash", {"command": "make test"}, project.root))[0] == "allow"
    fetch = {"url": "https://example.com"}
    assert (await decide(gate, "WebFetch", fetch, project.root))[0] == "allow"
    write_outside = {"file_path": str(project.outside / "n.txt"), "content": ""}
    assert (await decide(gate, "Write", write_outside, project.root))[0] == "allow"


async def test_explicit_mode_beats_settings_mode(project: Project) -> None:
    settings = settings_for(project, {"permissions": {"defaultMode": "acceptEdits"}})
    gate = build_permission_gate(cwd=project.root, permission_mode="plan", settings=settings)
    assert gate.mode == "plan"


async def test_python_and_settings_hooks_both_run(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    settings = settings_for(
        project,
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}},
    )
    seen: list[str] = []

    async def python_hook(
        input: dict[str, Any], tool_use_id: str | None, ctx: Any
    ) -> dict[str, Any]:
        seen.append(input["tool_name"])
        return {}

    gate = build_permission_gate(
        cwd=project.root,
        settings=settings,
        hooks={"PreToolUse": [HookMatcher("Read", [python_hook])]},
    )
    read = {"file_path": str(project.root / "src/app.py")}
    assert (await decide(gate, "Read", read, project.root))[0] == "allow"
    assert seen == ["Read"] and marker.exists()


def test_unanchored_allow_glob_becomes_a_warning(project: Project) -> None:
    gate = build_permission_gate(cwd=project.root, allowed_tools=["mcp__*"])
    assert gate.rule_warnings and "mcp__*" in gate.rule_warnings[0]


def test_working_dirs_are_absolute_and_unique(tmp_path: Path) -> None:
    dirs = session_working_dirs(tmp_path, ["sub", str(tmp_path), "~"])
    assert dirs == (tmp_path, tmp_path / "sub", Path.home())
