"""Where a rule applies: relative rules keep meaning the original cwd, bare Edit and Read
rules cover their sibling tools, and paths are judged where the tool really reaches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from permissions.permission_helpers import Project, Recorder, decide, make_gate

DENY = ["Read(./.env)", "Read(secrets/**)", "Edit(./config/**)", "Bash(rm *)"]


@pytest.mark.parametrize("rule", ["Read(./secrets/**)", "Read(secrets/**)", "Read(.env)"])
async def test_relative_deny_rules_stay_anchored_after_the_shell_moves(
    project: Project, rule: str
) -> None:
    """After an approved ``cd src``, the session's cwd is src; relative rules still mean
    the original cwd."""
    gate = make_gate(project.root, deny=[rule], callback=Recorder())
    target = project.root / (".env" if ".env" in rule else "secrets/key")
    outcome, _ = await decide(gate, "Read", {"file_path": str(target)}, project.root / "src")
    assert outcome == "deny"


async def test_relative_allow_rules_mean_the_original_cwd(project: Project) -> None:
    gate = make_gate(project.root, allow=["Edit(./config/**)"], callback=Recorder())
    moved = project.root / "src"
    config = str(project.root / "config" / "app.yml")
    assert (await decide(gate, "Edit", {"file_path": config}, moved))[0] == "allow"
    inner = str(moved / "config" / "x.yml")
    assert (await decide(gate, "Edit", {"file_path": inner}, moved))[0] == "ask"


async def test_a_bare_edit_deny_also_denies_write(project: Project) -> None:
    gate = make_gate(project.root, deny=["Edit"], mode="acceptEdits", callback=Recorder())
    target = {"file_path": str(project.root / "src" / "new.py"), "content": "x"}
    assert (await decide(gate, "Write", target, project.root))[0] == "deny"


async def test_a_bare_read_deny_also_denies_grep_and_glob(project: Project) -> None:
    gate = make_gate(project.root, deny=["Read"], callback=Recorder())
    search = {"pattern": "TOKEN", "path": str(project.root)}
    assert (await decide(gate, "Grep", search, project.root))[0] == "deny"
    assert (await decide(gate, "Glob", {"pattern": "**/*"}, project.root))[0] == "deny"


async def test_a_tilde_user_path_is_checked_where_the_tool_reads_it(project: Project) -> None:
    """Read expands ``~root/x`` to /root/x; the policy must not see ``<cwd>/~root/x``."""
    import pwd

    me = pwd.getpwuid(os.getuid())
    gate = make_gate(project.root, callback=Recorder(), home=Path(me.pw_dir))
    target = {"file_path": f"~{me.pw_name}/.ssh/id_rsa"}
    assert (await decide(gate, "Read", target, project.root))[0] == "ask"
    denying = make_gate(project.root, deny=["Read(~/.ssh/**)"], home=Path(me.pw_dir))
    assert (await decide(denying, "Read", target, project.root))[0] == "deny"


async def test_glob_through_a_symlinked_directory_is_judged_where_it_walks(
    project: Project,
) -> None:
    (project.root / "src" / "door").symlink_to(project.outside)
    gate = make_gate(project.root, deny=DENY, callback=Recorder())
    listing = {"pattern": "src/door/**", "path": str(project.root)}
    assert (await decide(gate, "Glob", listing, project.root))[0] == "ask"
    secret_names = {"pattern": "secrets/*", "path": str(project.root)}
    assert (await decide(gate, "Glob", secret_names, project.root))[0] == "deny"
    plain = {"pattern": "src/**/*.py", "path": str(project.root)}
    assert (await decide(gate, "Glob", plain, project.root))[0] == "allow"
