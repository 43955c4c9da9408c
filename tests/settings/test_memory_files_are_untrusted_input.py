"""Memory files are resolved, held to deny rules and the working dirs, and read safely."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loopwright.settings.load import load_settings
from loopwright.settings.memory import MAX_MEMORY_BYTES


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- SSHSECRET")
    (path / ".config" / "loopwright").mkdir(parents=True)
    (path / ".config" / "loopwright" / "env").write_text("ANTHROPIC_API_KEY=ENVSECRET")
    (path / "notes.md").write_text("NOTESECRET personal notes")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    (path / ".claude").mkdir()
    (path / "secrets").mkdir()
    (path / "secrets" / "key").write_text("DENIEDSECRET")
    return path


def _link(link: Path, target: Path | str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)


TARGETS = {
    "ssh key": lambda home, root: home / ".ssh" / "id_rsa",
    "loopwright env file": lambda home, root: home / ".config" / "loopwright" / "env",
    "a file outside the project": lambda home, root: home / "notes.md",
    "proc environ": lambda home, root: Path("/proc/self/environ"),
    "dev zero": lambda home, root: Path("/dev/zero"),
    "dev stdin": lambda home, root: Path("/dev/stdin"),
}
NAMES = ["CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]


@pytest.mark.parametrize("trusted", [True, False], ids=["trusted", "untrusted"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("target", list(TARGETS.values()), ids=list(TARGETS))
def test_a_memory_file_linked_out_of_the_project_is_refused_with_a_notice(
    root: Path, home: Path, name: str, target: object, trusted: bool
) -> None:
    destination = target(home, root)  # type: ignore[operator]
    _link(root / name, destination)
    settings = load_settings(root, home=home, trust_project=trusted)
    assert "SECRET" not in settings.memory and "BEGIN" not in settings.memory
    assert "ANTHROPIC_API_KEY" not in settings.memory and "PATH=" not in settings.memory
    assert settings.memory_files == ()
    [notice] = [w for w in settings.warnings if "memory file" in w]
    assert name in notice and "was not loaded" in notice


@pytest.mark.parametrize("name", NAMES)
def test_a_memory_file_a_read_deny_rule_covers_is_refused(
    root: Path, home: Path, name: str
) -> None:
    (root / ".claude" / "settings.json").write_text(
        '{"permissions": {"deny": ["Read(./secrets/**)"]}}'
    )
    _link(root / name, root / "secrets" / "key")
    settings = load_settings(root, home=home)
    assert "DENIEDSECRET" not in settings.memory
    assert any("Read deny rule" in w for w in settings.warnings)


def test_a_deny_rule_from_options_holds_for_a_plain_memory_file_too(root: Path, home: Path) -> None:
    (root / "CLAUDE.md").write_text("PLAINSECRET")
    settings = load_settings(root, home=home, extra_read_deny=["Read(./CLAUDE.md)"])
    assert "PLAINSECRET" not in settings.memory


def test_a_link_inside_the_project_still_loads(root: Path, home: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "agents.md").write_text("shared instructions")
    _link(root / "AGENTS.md", root / "docs" / "agents.md")
    _link(root / "CLAUDE.md", "AGENTS.md")  # relative, and to a file also loaded itself
    settings = load_settings(root, home=home)
    assert settings.memory.count("shared instructions") == 1
    assert not [w for w in settings.warnings if "memory file" in w]


def test_the_users_own_memory_file_may_link_anywhere_but_proc_and_dev(
    root: Path, home: Path
) -> None:
    _link(home / ".claude" / "CLAUDE.md", home / "notes.md")
    assert "personal notes" in load_settings(root, home=home).memory
    (home / ".claude" / "CLAUDE.md").unlink()
    _link(home / ".claude" / "CLAUDE.md", "/proc/self/environ")
    settings = load_settings(root, home=home)
    assert "PATH=" not in settings.memory and any("/proc" in w for w in settings.warnings)


def test_an_import_of_a_history_or_credential_file_is_refused(root: Path, home: Path) -> None:
    (home / ".bash_history").write_text("HISTSECRET")
    (home / ".pgpass").write_text("PGSECRET")
    (root / "CLAUDE.md").write_text("@~/.bash_history\n@~/.pgpass\n@~/.config/loopwright/env\n")
    settings = load_settings(root, home=home)
    assert "SECRET" not in settings.memory


def test_a_fifo_does_not_block_and_a_huge_file_is_not_read(root: Path, home: Path) -> None:
    os.mkfifo(root / "CLAUDE.md")
    (root / "AGENTS.md").write_text("x" * (MAX_MEMORY_BYTES + 1))
    (root / ".claude" / "CLAUDE.md").write_text("small and fine")
    settings = load_settings(root, home=home)  # returns: the FIFO is never waited on
    assert settings.memory.strip().endswith("small and fine")
    notices = [w for w in settings.warnings if "memory file" in w]
    assert any("not a regular file" in n for n in notices)
    assert any("larger than" in n for n in notices)


def test_a_symlink_loop_is_a_notice_not_a_crash(root: Path, home: Path) -> None:
    _link(root / "CLAUDE.md", root / "AGENTS.md")
    _link(root / "AGENTS.md", root / "CLAUDE.md")
    settings = load_settings(root, home=home)
    assert settings.memory == ""
    assert any("does not resolve" in w for w in settings.warnings)
