"""Paths are judged after resolution — cd within the line, $HOME, ~, .., symlinks — for
Read and Edit rules alike; a path that cannot be known asks when a rule could match it."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.types import PermissionMode


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    (home / "proj").mkdir()
    (home / "proj" / "keylink").symlink_to(home / ".ssh" / "id_rsa")
    return home


def verdict(
    home: Path,
    command: str,
    *,
    deny: tuple[str, ...] = ("Read(~/.ssh/**)",),
    mode: PermissionMode = "bypassPermissions",
    cwd: Path | None = None,
) -> str:
    where = cwd or home / "proj"
    rules = RuleSet.from_strings(deny=deny, anchor=where)
    policy = PermissionPolicy(rules, mode, (where,), home=home)
    return policy.evaluate("Bash", {"command": command}, where).behavior


@pytest.mark.parametrize(
    "command",
    [
        "cd ~ && cat .ssh/id_rsa",
        "cd && cat .ssh/id_rsa",
        "cd $HOME && cat .ssh/id_rsa",
        'cd "$HOME/.ssh" && cat id_rsa',
        "cd .. && cat .ssh/id_rsa",
        "cd ../.ssh; head -1 id_rsa",
        'cat "$HOME/.ssh/id_rsa"',
        "cat ${HOME}/.ssh/id_rsa",
        "cat ~/.ssh/id_rsa",
        "cat ../.ssh/./id_rsa",
        "cat keylink",
        "grep -h . < ~/.ssh/id_rsa",
        "sh -c 'cd ~ && cat .ssh/id_rsa'",
    ],
)
def test_read_deny_rule_applies_after_cd_home_and_links(home: Path, command: str) -> None:
    assert verdict(home, command) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "cat $KEYFILE",
        "cd $SOMEWHERE && cat id_rsa",
        "cd - && cat id_rsa",
        "cat ~other/id_rsa",
        "find . -name x | xargs cat",
    ],
)
def test_read_of_a_path_that_cannot_be_known_asks(home: Path, command: str) -> None:
    assert verdict(home, command) == "ask"
    assert verdict(home, command, mode="dontAsk") == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "cd ~ && echo x >> .bashrc-notes",
        'cd "$HOME" && cp /dev/null .ssh/config',
        "echo x > ~/.ssh/config",
        'tee "$HOME/.ssh/config" < /dev/null',
    ],
)
def test_edit_deny_rule_applies_after_resolution(home: Path, command: str) -> None:
    deny = ("Edit(~/.ssh/**)", "Edit(~/.bashrc-notes)")
    assert verdict(home, command, deny=deny) == "deny"


def test_write_to_a_path_that_cannot_be_known_asks(home: Path) -> None:
    assert verdict(home, 'echo x > "$TARGET"', deny=("Edit(~/.ssh/**)",)) == "ask"


def test_plain_commands_in_the_project_are_not_held_up(home: Path) -> None:
    (home / "proj" / "a.txt").write_text("a\n")
    assert verdict(home, "cat a.txt") == "allow"
    assert verdict(home, "cat a.txt", mode="default") == "allow"
