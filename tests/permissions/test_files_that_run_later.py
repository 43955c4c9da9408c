"""One list of files that run code later, applied wherever it sits: in a project, or in
HOME when the working directory is HOME itself (common in containers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.permissions.paths.protected import is_protected, top_level_names

HOME_FILES = [
    ".ssh/authorized_keys",
    ".ssh/config",
    ".ssh/id_ed25519",
    ".config/git/config",
    ".gitconfig",
    ".config/fish/config.fish",
    ".config/loopwright/env",
    ".config/loopwright/settings.json",
    ".local/lib/python3.12/site-packages/evil.pth",
    ".local/lib/python3.12/site-packages/sitecustomize.py",
    ".bashrc",
    ".zshenv",
    ".kshrc",
    ".tcshrc",
    ".cshrc",
    ".zlogout",
    ".config/systemd/user/x.service",
]
PROJECT_FILES = [
    ".venv/bin/activate",
    ".venv/bin/activate.fish",
    "venv/bin/activate_this.py",
    "mise.toml",
    ".mise.toml",
    ".tool-versions",
    ".pnpmfile.cjs",
    ".npmrc",
    ".yarnrc.yml",
    ".envrc",
    ".github/workflows/ci.yml",
    ".gitlab-ci.yml",
    ".circleci/config.yml",
    "Jenkinsfile",
    ".git/config",
    ".git/hooks/pre-commit",
    "usercustomize.py",
]


def policy(cwd: Path, home: Path) -> PermissionPolicy:
    return PermissionPolicy(RuleSet(), "acceptEdits", (cwd,), home=home)


@pytest.mark.parametrize("relative", HOME_FILES)
def test_accept_edits_asks_before_writing_a_home_file_that_runs_later(
    tmp_path: Path, relative: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    p = policy(home, home)  # the working directory is HOME
    write = {"file_path": str(home / relative), "content": "x"}
    assert p.evaluate("Write", write, home).behavior == "ask"
    shell = {"command": f"mkdir -p $(dirname {relative}); echo x > {relative}"}
    assert p.evaluate("Bash", shell, home).behavior == "ask"
    assert p.evaluate("Bash", {"command": f"touch {relative}"}, home).behavior == "ask"


@pytest.mark.parametrize("relative", PROJECT_FILES)
def test_accept_edits_asks_before_writing_a_project_file_that_runs_later(
    tmp_path: Path, relative: str
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    p = policy(proj, tmp_path / "home")
    assert p.evaluate("Edit", {"file_path": relative}, proj).behavior == "ask"
    assert p.evaluate("Bash", {"command": f"cp /dev/null {relative}"}, proj).behavior == "ask"


@pytest.mark.parametrize("relative", ["src/app.py", "model.pth", "bin/tool", "notes/config"])
def test_ordinary_files_stay_editable(tmp_path: Path, relative: str) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    p = policy(proj, tmp_path / "home")
    assert p.evaluate("Write", {"file_path": relative, "content": ""}, proj).behavior == "allow"
    assert not is_protected(str(proj / relative))


def test_the_sandbox_pins_the_same_list_at_the_top_of_a_working_dir() -> None:
    names = top_level_names()
    for place in (".ssh", ".config/git", ".config/loopwright", ".github/workflows", "mise.toml"):
        assert place in names
        assert is_protected(place)


def test_files_a_git_config_includes_are_protected_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "dots").mkdir(parents=True)
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/dots/git.inc\n")
    proj = home / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "config").write_text('[includeIf "gitdir:~/"]\n\tpath = ../team.gitconfig\n')
    # HOME is a working dir too: without the include, both writes would be approved.
    p = PermissionPolicy(RuleSet(), "acceptEdits", (home, proj), home=home)
    for target in (home / "dots" / "git.inc", proj / "team.gitconfig"):
        write = {"file_path": str(target), "content": "[core]\n\tfsmonitor = x\n"}
        assert p.evaluate("Write", write, proj).behavior == "ask"
        shell = {"command": f"echo x >> {target}"}
        assert p.evaluate("Bash", shell, proj).behavior == "ask"
    for plain in (proj / "notes.txt", home / "dots" / "notes.txt"):
        write = {"file_path": str(plain), "content": ""}
        assert p.evaluate("Write", write, proj).behavior == "allow"
