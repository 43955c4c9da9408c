"""Cases the shell fuzzer found, kept as plain decisions of the analyser.

Each entry is a command, the allow rules it ran under (always with the Read deny rules
below), and what the fuzzer's oracle saw it do once approved. A case still open would be
marked ``xfail(strict=True)`` until the analyser is fixed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loopwright.permissions import PermissionPolicy, RuleSet

DENY = ["Read(./secrets/**)", "Read(**/.env)"]
NARROW = ["Bash(echo *)", "Bash(npm run *)", "Bash(git status)", "Bash(ls *)"]
WITH_GIT = [*NARROW, "Bash(git *)"]

# (command, allow rules, observed effect) — approved once, asked about since: git
# subcommands that write config or plant hooks are protected writes; df's operands are reads.
_OPEN: list[tuple[str, list[str], str]] = [
    (
        "git init --template=cfg",
        WITH_GIT,
        "copies the repository's cfg/hooks/pre-commit into .git/hooks (the next git commit "
        "runs it) and rewrites .git/config",
    ),
    ("git init", WITH_GIT, "rewrites .git/config and recreates .git/hooks"),
    ("realpat''h & git init", WITH_GIT, "the same, behind another command"),
    (
        "git init --separate-git-dir=x",
        WITH_GIT,
        "moves .git to x and puts a gitfile in its place (the .git directory swapped)",
    ),
    ("git remote add o ../outside", WITH_GIT, "writes .git/config"),
    ("git maintenance register", WITH_GIT, "writes .git/config and ~/.gitconfig"),
    (
        "git maintenance start",
        WITH_GIT,
        "runs systemctl (or crontab) to schedule git in the background, and writes "
        ".git/config and ~/.gitconfig",
    ),
    (
        "g''it maintenance register <> src/new.py",
        WITH_GIT,
        "writes .git/config and ~/.gitconfig",
    ),
    (
        "git clone -q --template=cfg . x",
        WITH_GIT,
        "creates the nested repository x with cfg/hooks/pre-commit planted in x/.git/hooks",
    ),
]
# Read-only approvals (no allow rule) that open a denied file.
_OPEN_READ_ONLY: list[tuple[str, list[str], str]] = [
    (
        "df .env",
        [],
        "df opens .env (O_RDONLY, to find its file system); it reads and prints nothing of "
        "it — the oracle counts any open of a denied file",
    ),
    ("timeout 5 df src/../.env src/util.py", [], "df opens .env"),
    ("df --output=source .e*", [], "df opens .env (the glob reaches it)"),
]
_OPEN += _OPEN_READ_ONLY
OPEN_BYPASSES = frozenset(command for command, _rules, _effect in _OPEN)
# The analyser raises on a path under /proc it cannot resolve (see the last test): any
# command that reaches one, e.g. a tree walk from /, is that same open case.
OPEN_CRASH_TEXT = "Permission denied: '/proc/"


def _verdict(root: Path, command: str, allow: list[str]) -> str:
    rules = RuleSet.from_strings(allow=allow, deny=DENY, anchor=root)
    policy = PermissionPolicy(rules, "default", (root,), home=root.parent / "home")
    return policy.evaluate("Bash", {"command": command}, root).behavior


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    for directory in (".git/hooks", "cfg/hooks", "secrets", "src"):
        (project / directory).mkdir(parents=True)
    (project / ".env").write_text("TOKEN=x\n")
    (project / "src" / "util.py").write_text("")
    (project / "cfg" / "hooks" / "pre-commit").write_text("#!/bin/sh\ntouch pwned\n")
    return project


@pytest.mark.parametrize(
    ("command", "allow", "effect"),
    [
        pytest.param(
            command,
            allow,
            effect,
            id=command,
        )
        for command, allow, effect in _OPEN
    ],
)
def test_open_bypass_is_not_approved(
    root: Path, command: str, allow: list[str], effect: str
) -> None:
    assert _verdict(root, command, allow) != "allow", effect


def _unreadable_proc_link() -> str | None:
    try:
        os.readlink("/proc/1/cwd")
    except PermissionError:
        return "/proc/1/cwd"
    except OSError:
        return None
    return None


@pytest.mark.skipif(
    _unreadable_proc_link() is None, reason="/proc/1/cwd is readable here (no error to meet)"
)
@pytest.mark.parametrize("command", ["ls /proc/1/cwd", "find -name -H /"])
def test_analyser_answers_for_paths_it_cannot_resolve(root: Path, command: str) -> None:
    assert _verdict(root, command, []) in ("allow", "ask", "deny")
