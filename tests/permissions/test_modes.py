"""Every permission mode against every tool kind, with no rules, then modes meeting rules."""

from __future__ import annotations

from typing import Any

import pytest

from loopwright.types import PermissionMode
from permissions.permission_helpers import Project, Recorder, decide, make_gate

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "read": ("Read", {"file_path": "{proj}/src/app.py"}),
    "read-outside": ("Read", {"file_path": "{outside}/file"}),
    "edit": ("Edit", {"file_path": "{proj}/src/app.py", "old_string": "a", "new_string": "b"}),
    "write": ("Write", {"file_path": "{proj}/new.txt", "content": "x"}),
    "write-outside": ("Write", {"file_path": "{outside}/new.txt", "content": "x"}),
    "bash-readonly": ("Bash", {"command": "ls src && git status"}),
    "bash-mkdir": ("Bash", {"command": "mkdir -p build && touch build/x"}),
    "bash-mkdir-outside": ("Bash", {"command": "mkdir /tmp/elsewhere"}),
    "bash-other": ("Bash", {"command": "make install"}),
    "bash-mkdir-variable": ("Bash", {"command": "mkdir -p $HOME/x"}),
    "bash-redirect": ("Bash", {"command": "echo hi > notes.txt"}),
    "webfetch": ("WebFetch", {"url": "https://example.com/"}),
    "mcp": ("mcp__files__read", {"name": "x"}),
    "custom": ("custom_tool", {"x": 1}),
    "agent": ("Agent", {"subagent_type": "Explore", "prompt": "look"}),
    "todo": ("TodoWrite", {"todos": []}),
    "structured-output": ("StructuredOutput", {"answer": 42}),
}

EXPECTED: dict[str, dict[str, str]] = {
    "default": {
        "read": "allow",
        "read-outside": "ask",
        "edit": "ask",
        "write": "ask",
        "write-outside": "ask",
        "bash-readonly": "allow",
        "bash-mkdir": "ask",
        "bash-mkdir-outside": "ask",
        "bash-other": "ask",
        "bash-mkdir-variable": "ask",
        "bash-redirect": "ask",
        "webfetch": "ask",
        "mcp": "ask",
        "custom": "ask",
        "agent": "allow",
        "todo": "allow",
        "structured-output": "allow",
    },
    "acceptEdits": {
        "read": "allow",
        "read-outside": "ask",
        "edit": "allow",
        "write": "allow",
        "write-outside": "ask",
        "bash-readonly": "allow",
        "bash-mkdir": "allow",
        "bash-mkdir-outside": "ask",
        "bash-other": "ask",
        "bash-mkdir-variable": "ask",
        "bash-redirect": "allow",
        "webfetch": "ask",
        "mcp": "ask",
        "custom": "ask",
        "agent": "allow",
        "todo": "allow",
        "structured-output": "allow",
    },
    "plan": {
        "read": "allow",
        "read-outside": "ask",
        "edit": "ask",
        "write": "ask",
        "write-outside": "ask",
        "bash-readonly": "allow",
        "bash-mkdir": "ask",
        "bash-mkdir-outside": "ask",
        "bash-other": "ask",
        "bash-mkdir-variable": "ask",
        "bash-redirect": "ask",
        "webfetch": "ask",
        "mcp": "ask",
        "custom": "ask",
        "agent": "allow",
        "todo": "allow",
        "structured-output": "allow",
    },
    "dontAsk": {
        "read": "allow",
        "read-outside": "deny",
        "edit": "deny",
        "write": "deny",
        "write-outside": "deny",
        "bash-readonly": "allow",
        "bash-mkdir": "deny",
        "bash-mkdir-outside": "deny",
        "bash-other": "deny",
        "bash-mkdir-variable": "deny",
        "bash-redirect": "deny",
        "webfetch": "deny",
        "mcp": "deny",
        "custom": "deny",
        "agent": "allow",
        "todo": "allow",
        "structured-output": "allow",
    },
    "bypassPermissions": dict.fromkeys(CALLS, "allow"),
}

MATRIX = [(mode, call) for mode in EXPECTED for call in CALLS]


@pytest.mark.parametrize(("mode", "call"), MATRIX, ids=[f"{m}-{c}" for m, c in MATRIX])
async def test_mode_against_tool_kind(project: Project, mode: PermissionMode, call: str) -> None:
    name, raw_input = CALLS[call]
    tool_input = {k: project.fmt(v) if isinstance(v, str) else v for k, v in raw_input.items()}
    gate = make_gate(project.root, mode=mode, callback=Recorder())
    outcome, _ = await decide(gate, name, tool_input, project.root)
    assert outcome == EXPECTED[mode][call]


async def test_plan_mode_ignores_allow_rules_for_edits(project: Project) -> None:
    gate = make_gate(project.root, mode="plan", allow=["Edit", "Bash"], callback=Recorder())
    edit = {"file_path": str(project.root / "src/app.py")}
    assert (await decide(gate, "Edit", edit, project.root))[0] == "ask"
    assert (await decide(gate, "Bash", {"command": "touch x"}, project.root))[0] == "ask"
    assert (await decide(gate, "Bash", {"command": "ls"}, project.root))[0] == "allow"


async def test_dont_ask_runs_pre_approved_tools(project: Project) -> None:
    gate = make_gate(project.root, mode="dontAsk", allow=["WebFetch", "Bash(make *)"])
    fetch = {"url": "https://example.com"}
    assert (await decide(gate, "WebFetch", fetch, project.root))[0] == "allow"
    assert (await decide(gate, "Bash", {"command": "make test"}, project.root))[0] == "allow"


async def test_dont_ask_never_calls_the_callback(project: Project) -> None:
    recorder = Recorder()
    gate = make_gate(project.root, mode="dontAsk", ask=["Bash(git *)"], callback=recorder)
    outcome, decision = await decide(gate, "Bash", {"command": "git log"}, project.root)
    assert outcome == "deny" and not recorder.calls
    assert "dontAsk" in decision.message


async def test_bypass_still_obeys_deny_rules(project: Project) -> None:
    gate = make_gate(project.root, mode="bypassPermissions", deny=["Bash(rm *)"])
    outcome, _ = await decide(gate, "Bash", {"command": "ls; rm -rf /"}, project.root)
    assert outcome == "deny"


async def test_bypass_still_asks_on_ask_rules(project: Project) -> None:
    recorder = Recorder()
    gate = make_gate(
        project.root, mode="bypassPermissions", ask=["Bash(git push *)"], callback=recorder
    )
    outcome, _ = await decide(gate, "Bash", {"command": "git push"}, project.root)
    assert outcome == "ask"
    assert recorder.calls[0][2].reason == "matches ask rule Bash(git push *)"


async def test_ask_rule_beats_a_more_specific_allow_rule(project: Project) -> None:
    gate = make_gate(
        project.root,
        allow=["Bash(git push origin main)"],
        ask=["Bash(git push *)"],
        callback=Recorder(),
    )
    outcome, _ = await decide(gate, "Bash", {"command": "git push origin main"}, project.root)
    assert outcome == "ask"


async def test_accept_edits_stays_inside_additional_dirs(project: Project) -> None:
    gate = make_gate(
        project.root,
        mode="acceptEdits",
        working_dirs=[project.root, project.outside],
        callback=Recorder(),
    )
    write = {"file_path": str(project.outside / "new.txt"), "content": "x"}
    assert (await decide(gate, "Write", write, project.root))[0] == "allow"
    read = {"file_path": str(project.outside / "file")}
    assert (await decide(gate, "Read", read, project.root))[0] == "allow"


async def test_default_mode_without_callback_denies_with_advice(project: Project) -> None:
    gate = make_gate(project.root)
    outcome, decision = await decide(gate, "Bash", {"command": "make"}, project.root)
    assert outcome == "deny"
    assert "no can_use_tool callback" in decision.message
    assert "allowed_tools" in decision.message


async def test_set_mode_takes_effect_on_the_next_call(project: Project) -> None:
    gate = make_gate(project.root, callback=Recorder())
    write = {"file_path": str(project.root / "a.txt"), "content": "x"}
    assert (await decide(gate, "Write", write, project.root))[0] == "ask"
    gate.set_mode("acceptEdits")
    assert (await decide(gate, "Write", write, project.root))[0] == "allow"


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Write", {"file_path": "{proj}/.git/hooks/pre-commit", "content": "x"}),
        ("Edit", {"file_path": "{proj}/.claude/settings.json"}),
        ("Write", {"file_path": "{proj}/.mcp.json", "content": "{}"}),
        ("Write", {"file_path": "{proj}/sub/.bashrc", "content": "x"}),
        ("Bash", {"command": "touch .git/hooks/post-checkout"}),
        ("Bash", {"command": "cp evil.sh .git/hooks/pre-commit"}),
        ("Bash", {"command": "echo 'export PATH=.' > .envrc"}),
    ],
)
async def test_accept_edits_never_approves_protected_paths(
    project: Project, name: str, tool_input: dict[str, Any]
) -> None:
    gate = make_gate(project.root, mode="acceptEdits", callback=Recorder())
    resolved = {k: project.fmt(v) for k, v in tool_input.items()}
    assert (await decide(gate, name, resolved, project.root))[0] == "ask"


@pytest.mark.parametrize(
    "command", ["echo '[core]' > docs/cfg", "cp src/app.py docs/cfg", "touch docs/cfg"]
)
async def test_accept_edits_sees_a_symlink_into_git_config(project: Project, command: str) -> None:
    """A repository can ship ``docs/cfg -> ../.git/config``; writing through it plants
    e.g. core.fsmonitor, which the next ``git status`` runs."""
    (project.root / ".git" / "config").write_text("[core]\n")
    (project.root / "docs").mkdir()
    (project.root / "docs" / "cfg").symlink_to(project.root / ".git" / "config")
    gate = make_gate(project.root, mode="acceptEdits", callback=Recorder())
    assert (await decide(gate, "Bash", {"command": command}, project.root))[0] == "ask"


async def test_accept_edits_does_not_approve_a_pre_commit_config(project: Project) -> None:
    gate = make_gate(project.root, mode="acceptEdits", callback=Recorder())
    target = {"file_path": str(project.root / ".pre-commit-config.yaml"), "content": "x"}
    assert (await decide(gate, "Write", target, project.root))[0] == "ask"
