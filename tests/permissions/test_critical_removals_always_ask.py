"""Removing a critical path (home, the root, the project's parent) is never approved
without asking: not by bypass mode, an allow rule or a hook; dontAsk mode denies it."""

from __future__ import annotations

from typing import Any

import pytest

from loopwright.hooks.runner import HookMatcher
from permissions.permission_helpers import Project, Recorder, decide, make_gate

CRITICAL_REMOVALS = [
    "rm -rf ~",
    "rm -rf /",
    "rm -rf .",
    "rm -rf ..",
    "rm -rf $HOME",
    "rmdir /usr/",
    "sh -c 'rm -rf ~'",
    "echo $(rm -rf /)",
    "cd .. && rm -rf proj",
]


@pytest.mark.parametrize("command", CRITICAL_REMOVALS)
async def test_bypass_mode_still_asks_before_removing_a_critical_path(
    project: Project, command: str
) -> None:
    gate = make_gate(project.root, mode="bypassPermissions", callback=Recorder())
    outcome, _ = await decide(gate, "Bash", {"command": command}, project.root)
    assert outcome == "ask"


async def test_an_allow_rule_does_not_approve_removing_home(project: Project) -> None:
    gate = make_gate(project.root, allow=["Bash(rm *)"], callback=Recorder())
    assert (await decide(gate, "Bash", {"command": "rm -rf ~"}, project.root))[0] == "ask"
    assert (await decide(gate, "Bash", {"command": "rm -rf src"}, project.root))[0] == "allow"


async def test_a_hook_allow_does_not_approve_removing_the_root(project: Project) -> None:
    async def approve(data: Any, tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
        }

    hooks = {"PreToolUse": [HookMatcher("Bash", [approve])]}
    gate = make_gate(project.root, hooks=hooks, callback=Recorder())
    assert (await decide(gate, "Bash", {"command": "rm -rf /"}, project.root))[0] == "ask"


async def test_dont_ask_mode_denies_a_critical_removal_even_when_allowed(project: Project) -> None:
    gate = make_gate(project.root, allow=["Bash"], mode="dontAsk", callback=Recorder())
    assert (await decide(gate, "Bash", {"command": "rm -rf .."}, project.root))[0] == "deny"
