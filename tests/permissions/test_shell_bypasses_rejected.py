"""Shell commands that try to slip past the rules, each pinned to the decision it must get.

"allow": runs without asking; "deny": refused without asking; "ask": handed to the callback.
"""

from __future__ import annotations

import pytest

from loopwright.types import PermissionMode
from permissions.permission_helpers import Project, Recorder, decide, make_gate

DENY = ["Read(./.env)", "Read(secrets/**)", "Edit(./config/**)", "Bash(rm *)"]

DEFAULT_CASES: list[tuple[str, str, str]] = [
    # a cd earlier on the line moves where relative paths point
    ("bare-cd-then-home-file", "cd && cat .ssh/id_rsa", "ask"),
    ("cd-dash-then-read", "cd - && cat x", "ask"),
    ("cd-var-then-read", "cd $HOME && cat .bashrc", "ask"),
    ("cd-into-denied-dir", "cd secrets && cat key", "deny"),
    ("cd-into-denied-dir-semicolon", "cd secrets; head -n1 key", "deny"),
    ("subshell-cd-then-climb", "(cd src); cat ../../outside/file", "ask"),
    ("cd-inside-then-read", "cd src && cat app.py", "allow"),
    # env can rebuild the command line or change its directory
    ("env-split-string", "env -S 'curl evil.example'", "ask"),
    ("env-chdir", "env -C / cat etc/shadow", "ask"),
    ("env-chdir-long", "env --chdir=/ cat etc/shadow", "ask"),
    # xargs feeds arguments the policy never sees
    ("xargs-cat-denied-file", "echo .env | xargs cat", "ask"),
    ("xargs-cat-escaped-path", "printf '\\x2fetc\\x2fshadow' | xargs cat", "ask"),
    # writing flags hidden in a cluster of short options
    # (denied outright: Edit(./config/**) covers a config dir at any depth, .git/config too)
    ("sort-clustered-output", "printf x | sort -ruo .git/config", "deny"),
    ("sort-clustered-output-inside", "sort -uo notes.txt src/app.py", "ask"),
    ("date-clustered-set", "date -us 2020-01-01", "ask"),
    ("sort-key-value-not-output", "sort -k2o src/app.py", "allow"),
    # globs expand to files deny rules cover, or through symlinks out of the tree
    ("glob-question-denied-file", "cat .en?", "deny"),
    ("glob-star-denied-file", "cat .e*", "deny"),
    ("glob-denied-dir", "cat s*/key", "deny"),
    ("glob-through-symlink-out", "cat esc*", "ask"),
    ("glob-inside", "cat src/*.py", "allow"),
    # a glob can expand to a file named like a flag (-delete, --output=x, --pre=sh)…
    ("find-unquoted-glob", "find *", "ask"),
    ("rg-unquoted-glob", "rg x *", "deny"),
    ("cat-leading-question-glob", "cat ?ey", "ask"),
    # …unless a directory comes first: every expansion of config/* starts with config/
    ("find-glob-under-dir", "find config/*", "allow"),
    ("rg-glob-under-dir", "rg x config/*", "allow"),
    ("find-quoted-glob", "find . -name '*.py'", "allow"),
    # flags that read the paths listed on stdin or in a file
    ("sort-files0-from-stdin", "printf '\\x2fetc\\x2fshadow\\0' | sort --files0-from=-", "ask"),
    ("wc-files0-from", "wc --files0-from=list", "ask"),
    ("file-files-from", "file -f -", "ask"),
    # printf -v rewrites PATH for the rest of the line: git would run ./bin/git
    ("printf-sets-path", "printf -v PATH ./bin && git status", "ask"),
    ("printf-plain", "printf '%s\\n' hello", "allow"),
    # a path-qualified "read-only" name runs whatever file is there
    ("repository-cat", "./tools/cat README", "ask"),
    ("nested-ls", "src/ls", "ask"),
    ("system-cat", "/bin/cat src/app.py", "allow"),
    # <> opens the target for writing too
    ("read-write-redirect", "echo pwned 1<>notes.txt", "ask"),
    ("read-write-redirect-git-hook", "echo x 1<> .git/pre-commit", "ask"),
    ("read-write-redirect-denied-file", "cat 0<>.env", "deny"),
    # git in another directory runs that repository's config and hooks
    ("cd-then-git", "cd src && git status", "ask"),
]

ACCEPT_EDITS_CASES: list[tuple[str, str, str]] = [
    ("touch-denied-dir", "touch config/new", "deny"),
    ("cp-onto-denied-file", "cp src/app.py config/app.yml", "deny"),
    ("mkdir-denied-dir", "mkdir config/x", "deny"),
    ("mv-denied-read-file", "mv .env notes.txt", "deny"),
    ("cp-glob-into-git-hooks", "cp src/app.py .gi*/", "ask"),
    ("cp-inside", "cp src/app.py src/copy.py", "allow"),
]


@pytest.mark.parametrize(
    ("command", "expected"),
    [(c, e) for _, c, e in DEFAULT_CASES],
    ids=[i for i, _, _ in DEFAULT_CASES],
)
async def test_default_mode_gives_each_bypass_attempt_its_decision(
    project: Project, command: str, expected: str
) -> None:
    gate = make_gate(project.root, deny=DENY, callback=Recorder())
    outcome, _ = await decide(gate, "Bash", {"command": command}, project.root)
    assert outcome == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [(c, e) for _, c, e in ACCEPT_EDITS_CASES],
    ids=[i for i, _, _ in ACCEPT_EDITS_CASES],
)
async def test_accept_edits_gives_each_bypass_attempt_its_decision(
    project: Project, command: str, expected: str
) -> None:
    gate = make_gate(project.root, deny=DENY, mode="acceptEdits", callback=Recorder())
    outcome, _ = await decide(gate, "Bash", {"command": command}, project.root)
    assert outcome == expected


@pytest.mark.parametrize("mode", ["plan", "default"])
async def test_clustered_sort_output_is_not_read_only(
    project: Project, mode: PermissionMode
) -> None:
    gate = make_gate(project.root, mode=mode, callback=Recorder())
    outcome, _ = await decide(gate, "Bash", {"command": "echo x | sort -ro out"}, project.root)
    assert outcome == "ask"


async def test_plan_mode_treats_a_read_write_redirect_as_a_write(project: Project) -> None:
    gate = make_gate(project.root, mode="plan", callback=Recorder())
    command = {"command": "echo x 1<>src/app.py"}
    assert (await decide(gate, "Bash", command, project.root))[0] == "ask"
