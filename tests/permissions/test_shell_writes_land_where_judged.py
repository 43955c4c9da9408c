"""Shell writes are judged on the resolved destination of every file they can create:
a shipped ``d/a.txt -> ~/.bashrc`` must not let ``cp a.txt d/`` pass in acceptEdits."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.types import PermissionMode


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project that ships links into HOME, next to ordinary files and directories."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# rc\n")
    proj = home / "proj"
    for directory in ("d", "plain", "tpl", "tpl/sub", "e"):
        (proj / directory).mkdir(parents=True)
    (proj / "a.txt").write_text("a\n")
    (proj / "d" / "a.txt").symlink_to(home / ".bashrc")
    (proj / "tpl" / "a.txt").write_text("t\n")
    (proj / "tpl" / "sub" / "b.txt").write_text("t\n")
    (proj / "e" / "sub").symlink_to(home)  # e/sub/b.txt would be ~/b.txt
    (proj / "out").symlink_to(home)
    return proj


def verdict(proj: Path, command: str, mode: PermissionMode = "acceptEdits") -> str:
    policy = PermissionPolicy(RuleSet(), mode, (proj,), home=proj.parent)
    return policy.evaluate("Bash", {"command": command}, proj).behavior


@pytest.mark.parametrize(
    "command",
    [
        "cp a.txt d/",
        "cp a.txt d",
        "cp -t d a.txt",
        "cp --target-directory=d a.txt",
        "cp -f a.txt plain/../d/",
        "cp -r tpl/. d/",
        "cp -r tpl/. e/",
        "cp -a tpl/. e",
        "mv a.txt d/",
        "cp a.txt d/a.txt",
        "touch d/a.txt",
        "cp a.txt out/.profile-copy",
        "mkdir -p out/newdir",
    ],
)
def test_accept_edits_refuses_a_write_that_lands_outside(tree: Path, command: str) -> None:
    assert verdict(tree, command) == "ask"


@pytest.mark.parametrize(
    "command", ["cp a.txt plain/", "cp -t plain a.txt", "cp -r tpl/. plain/", "mkdir -p x/y"]
)
def test_accept_edits_approves_real_targets_inside(tree: Path, command: str) -> None:
    assert verdict(tree, command) == "allow"


@pytest.mark.parametrize(
    "command",
    ["cp a.txt d/", "cp -t d a.txt", "tee d/a.txt < a.txt", "echo x > d/a.txt", "cp a.txt d"],
)
def test_a_write_through_a_link_to_a_profile_asks_even_with_an_allow_rule(
    tree: Path, command: str
) -> None:
    rules = RuleSet.from_strings(allow=("Bash(cp *)", "Bash(tee *)", "Bash(echo *)"))
    policy = PermissionPolicy(rules, "default", (tree,), home=tree.parent)
    assert policy.evaluate("Bash", {"command": command}, tree).behavior == "ask"


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w") as handle:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            handle.addfile(info, io.BytesIO(data))


def test_archive_extraction_is_judged_on_its_members(tree: Path) -> None:
    _tar(tree / "ok.tar", {"src/a.py": b"x"})
    _tar(tree / "evil.tar", {".git/hooks/pre-commit": b"x"})
    with zipfile.ZipFile(tree / "evil.zip", "w") as handle:
        handle.writestr(".github/workflows/ci.yml", "on: push")
    rules = RuleSet.from_strings(allow=("Bash(tar *)", "Bash(unzip *)"))
    policy = PermissionPolicy(rules, "default", (tree,), home=tree.parent)

    def run(command: str) -> str:
        return policy.evaluate("Bash", {"command": command}, tree).behavior

    assert run("tar -xf ok.tar") == "allow"
    assert run("tar -xf evil.tar") == "ask"
    assert run("tar xf evil.tar") == "ask"
    assert run("unzip evil.zip") == "ask"
    assert run("unzip -l evil.zip") == "allow"
    assert run("tar -xf missing.tar") == "ask"  # members unknown


def test_an_archive_that_is_a_fifo_is_not_read_and_the_extraction_asks(tree: Path) -> None:
    # Listing a FIFO's members would block the permission check until someone writes to it.
    os.mkfifo(tree / "trap.tar")
    os.mkfifo(tree / "trap.zip")
    rules = RuleSet.from_strings(allow=("Bash(tar *)", "Bash(unzip *)"))
    policy = PermissionPolicy(rules, "default", (tree,), home=tree.parent)
    assert policy.evaluate("Bash", {"command": "tar -xf trap.tar"}, tree).behavior == "ask"
    assert policy.evaluate("Bash", {"command": "unzip trap.zip"}, tree).behavior == "ask"


def test_git_files_planted_as_fifos_do_not_block_the_sandbox_pins(tmp_path: Path) -> None:
    # Before every sandboxed command the host reads .gitmodules, the gitfile's target's
    # commondir and config to pin git's files: all the repository's, so possibly FIFOs.
    from loopwright.permissions.paths.protected import protected_bind_args

    project = tmp_path / "project"
    git_dir = tmp_path / "gitdir"
    (git_dir / "hooks").mkdir(parents=True)
    project.mkdir()
    (project / ".git").write_text(f"gitdir: {git_dir}\n")
    os.mkfifo(project / ".gitmodules")
    os.mkfifo(git_dir / "commondir")
    os.mkfifo(git_dir / "config")
    args = protected_bind_args(project)
    assert str(git_dir / "hooks") in args  # git's own files are still pinned
