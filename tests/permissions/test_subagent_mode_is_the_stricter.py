"""A subagent's mode is the stricter of its own and its parent's, whatever either is:
a table over every pair of modes, and the issue's case through the real loop."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from loopwright import AgentDefinition, run
from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.permissions.modes import subagent_modes
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.types import PERMISSION_MODES, PermissionMode, PermissionResultAllow
from support import base_options

MODES: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "plan",
    "dontAsk",
    "bypassPermissions",
)
# Calls that separate the modes: an edit inside (allowed by a rule, and not), a shell
# write, a read-only command, an unknown tool, a read.
PROBES: list[tuple[str, dict[str, Any]]] = [
    ("Write", {"file_path": "new.txt", "content": "x"}),
    ("Write", {"file_path": "src/ruled.py", "content": "x"}),
    ("Bash", {"command": "touch made.txt"}),
    ("Bash", {"command": "ls"}),
    ("Bash", {"command": "rm -rf build"}),
    ("custom_tool", {}),
    ("Read", {"file_path": "a.txt"}),
]
_RANK = {"allow": 0, "ask": 1, "deny": 2}


def policy(tmp_path: Path, mode: PermissionMode, also: tuple[PermissionMode, ...] = ()) -> Any:
    rules = RuleSet.from_strings(allow=("Edit(./src/**)",), anchor=tmp_path)
    return PermissionPolicy(rules, mode, (tmp_path,), home=tmp_path / "home", also_modes=also)


def expected(parent: str, child: str) -> str:
    """Strictest of the two verdicts; an ask under a dontAsk side is a deny."""
    worst = max(parent, child, key=_RANK.__getitem__)
    return worst


@pytest.mark.parametrize(("parent", "child"), list(itertools.product(MODES, repeat=2)))
def test_subagent_allows_only_what_both_modes_allow(
    tmp_path: Path, parent: PermissionMode, child: PermissionMode
) -> None:
    mode, also = subagent_modes((parent,), child)
    combined = policy(tmp_path, mode, also)
    for name, input in PROBES:
        alone = [
            policy(tmp_path, m).evaluate(name, input, tmp_path).behavior for m in (parent, child)
        ]
        want = expected(*alone)
        if want == "ask" and "dontAsk" in (parent, child):
            want = "deny"
        got = combined.evaluate(name, input, tmp_path).behavior
        assert got == want, f"{parent}/{child}: {name} {input} gave {got}, expected {want}"


@pytest.mark.parametrize(
    ("parent", "child", "reported"),
    [
        ("dontAsk", "plan", "plan"),
        ("plan", "dontAsk", "plan"),
        ("dontAsk", "bypassPermissions", "dontAsk"),
        ("bypassPermissions", "plan", "plan"),
        ("acceptEdits", "default", "default"),
        ("default", "acceptEdits", "default"),
        ("plan", "bypassPermissions", "plan"),
    ],
)
def test_reported_mode_is_never_looser_than_the_parent(
    parent: PermissionMode, child: PermissionMode, reported: str
) -> None:
    assert subagent_modes((parent,), child)[0] == reported


def test_plan_under_dont_ask_neither_edits_nor_asks(tmp_path: Path) -> None:
    combined = policy(tmp_path, *subagent_modes(("dontAsk",), "plan"))
    edit = {"file_path": "src/ruled.py", "content": "x"}  # the allow rule covers it
    assert combined.evaluate("Write", edit, tmp_path).behavior == "deny"
    assert combined.evaluate("Bash", {"command": "ls"}, tmp_path).behavior == "allow"


def test_a_grandchild_keeps_every_ancestor_constraint() -> None:
    mode, also = subagent_modes(("plan", "dontAsk"), "bypassPermissions")
    assert (mode, also) == ("plan", ("dontAsk",))
    assert set(PERMISSION_MODES) >= {mode, *also}


async def test_plan_subagent_under_a_dont_ask_parent_makes_no_file(tmp_path: Path) -> None:
    # plan asks before an edit; the parent's dontAsk never asks, so the callback (which
    # would approve anything) is not consulted and the Write is denied.
    asked: list[str] = []

    async def approve_all(name: str, input: dict[str, Any], ctx: Any) -> PermissionResultAllow:
        asked.append(name)
        return PermissionResultAllow()

    planner = AgentDefinition(description="Plans", prompt="Plan.", permission_mode="plan")
    model = ScriptedModel(
        [
            tool_call("Agent", description="p", prompt="plan it", subagent_type="planner"),
            tool_call("Write", file_path=str(tmp_path / "made.txt"), content="x"),
            text("could not write"),
            text("done"),
        ]
    )
    await run(
        "go",
        base_options(
            model,
            cwd=tmp_path,
            tools=["Write", "Agent"],
            agents={"planner": planner},
            permission_mode="dontAsk",
            can_use_tool=approve_all,
        ),
    )
    assert not (tmp_path / "made.txt").exists()
    assert asked == []
