"""Which shell commands only read, and which are the file operations acceptEdits approves.

Both lists are deliberately short: a command missing here just needs a rule or a
decision, while a wrong entry would approve writes silently.
"""

from __future__ import annotations

import os
from pathlib import Path

from loopwright.permissions.paths import inside_any, spell
from loopwright.permissions.shell import ShellAnalysis, SimpleCommand

READ_ONLY_COMMANDS = frozenset(
    [
        "ls",
        "cat",
        "echo",
        "printf",
        "pwd",
        "head",
        "tail",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "wc",
        "which",
        "type",
        "diff",
        "stat",
        "du",
        "df",
        "file",
        "tree",
        "cd",
        "true",
        "false",
        "cut",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "date",
        "whoami",
        "id",
        "uname",
        "nl",
        "find",
        "test",
        "[",
        "cmp",
        "md5sum",
        "sha256sum",
        "sha1sum",
        "sort",
    ]
)
_READ_ONLY_GIT = frozenset(
    ["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog"]
)
ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "mv", "cp"})
# Flags that make an otherwise read-only command write a file or run a program.
_WRITING_FLAGS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output", "--compress-program"),
    "tree": ("-o",),
    "rg": ("--pre",),
    "date": ("-s", "--set"),
    "file": ("-C", "--compile"),
    "git": ("--output", "-o", "--ext-diff", "--exec"),
}


def is_read_only(command: SimpleCommand) -> bool:
    if not command.words:
        return True
    name = os.path.basename(command.name)
    flags = _WRITING_FLAGS.get(name)
    if flags and any(w.startswith(flags) for w in command.words[1:]):
        return False
    if name == "git":
        # Global options (-c, -C, --exec-path…) can run programs: only plain subcommands.
        return len(command.words) > 1 and command.words[1] in _READ_ONLY_GIT
    return name in READ_ONLY_COMMANDS


def shell_is_read_only(analysis: ShellAnalysis) -> bool:
    """No redirects to files, nothing unsafe, every subcommand read-only."""
    return (
        analysis.safe
        and not analysis.redirect_targets
        and all(is_read_only(c) for c in analysis.commands)
    )


def args_inside(
    command: SimpleCommand,
    cwd: os.PathLike[str] | str,
    home: os.PathLike[str] | str,
    working_dirs: tuple[os.PathLike[str], ...],
    *,
    every_arg: bool,
) -> bool:
    """Path arguments stay within the working dirs. ``every_arg`` treats each non-flag
    argument as a path (for mkdir/cp…); otherwise only path-looking ones count. Values
    the shell would still expand ($VAR, `cmd`, {a,b}, ~user) are unknown, so outside."""
    dirs = tuple(Path(d) for d in working_dirs)
    for word in command.words[1:]:
        candidate = _flag_value(word) if word.startswith("-") else word
        if candidate is None:
            continue
        if any(ch in candidate for ch in "$`{") or (
            candidate.startswith("~") and not candidate.startswith("~/") and candidate != "~"
        ):
            return False
        # An existing name counts too: it may be a symlink that points out of the tree.
        looks_like_path = (
            "/" in candidate
            or candidate.startswith((".", "~"))
            or os.path.lexists(os.path.join(cwd, candidate))
        )
        if not (looks_like_path or (every_arg and not word.startswith("-"))):
            continue
        if not inside_any(spell(candidate, Path(cwd), Path(home)), dirs):
            return False
    return True


def _flag_value(word: str) -> str | None:
    """The value glued to a flag (``--file=/x``, ``-f/x``), which may be a path too."""
    if "=" in word:
        return word.split("=", 1)[1]
    if not word.startswith("--") and len(word) > 2:
        return word[2:]
    return None
