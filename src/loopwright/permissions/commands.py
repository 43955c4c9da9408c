"""Which shell commands only read, and which are the file operations acceptEdits approves.

Both lists are deliberately short: a command missing here just needs a rule or a
decision, while a wrong entry would approve writes silently.
"""

from __future__ import annotations

import glob
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
_SYSTEM_BIN_DIRS = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/")
# Flags that make an otherwise read-only command write a file or run a program.
_WRITING_FLAGS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output", "--compress-program", "--files0-from"),
    "tree": ("-o",),
    "rg": ("--pre",),
    "date": ("-s", "--set"),
    "file": ("-C", "--compile", "-m", "--magic-file", "-f", "--files-from"),
    "git": ("--output", "-o", "--ext-diff", "--exec"),
    # printf -v sets a variable (PATH=./bin) for the commands after it on the line.
    "printf": ("-v",),
    # Flags that open paths named elsewhere (stdin, a list file): unchecked reads.
    "wc": ("--files0-from",),
    "du": ("--files0-from",),
    "find": ("-files0-from",),
}
# Short options that take a value: in a cluster, the letters after one are its value.
_SHORT_WITH_VALUE: dict[str, str] = {"sort": "ktST", "date": "dfrI", "file": "eFP"}


def is_read_only(command: SimpleCommand) -> bool:
    if not command.words:
        return True
    name = os.path.basename(command.name)
    if "/" in command.name and not command.name.startswith(_SYSTEM_BIN_DIRS):
        return False  # ./tools/cat is whatever the repository put there, not cat
    if _has_writing_flag(name, command.words[1:]):
        return False
    if name in _WRITING_FLAGS and _unquoted_glob(command.source_text or command.text):
        # A glob may expand to a file named like a flag (``-delete``, ``--output=x``).
        return False
    if name == "git":
        if command.cd_dirs or not command.cwd_known:
            return False  # git in another directory runs that repository's hooks/config
        # Global options (-c, -C, --exec-path…) can run programs: only plain subcommands.
        return len(command.words) > 1 and command.words[1] in _READ_ONLY_GIT
    return name in READ_ONLY_COMMANDS


def _has_writing_flag(name: str, args: tuple[str, ...]) -> bool:
    """A writing flag, spelled alone, glued to its value, or inside a cluster of short
    options (``sort -ruo FILE`` is ``sort -r -u -o FILE``)."""
    flags = _WRITING_FLAGS.get(name)
    if not flags:
        return False
    letters = {flag[1] for flag in flags if len(flag) == 2}
    takes_value = _SHORT_WITH_VALUE.get(name, "")
    for word in args:
        if word == "--":
            return False
        if word.startswith(flags):
            return True
        if word.startswith("-") and not word.startswith("--"):
            for letter in word[1:]:
                if letter in letters:
                    return True
                if letter in takes_value:
                    break  # the rest of the word is this option's value
    return False


def _unquoted_glob(text: str) -> bool:
    """Whether the shell would glob-expand something in ``text`` (outside quotes)."""
    quote_char = ""
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quote_char != "'":
            escaped = True
        elif quote_char:
            if char == quote_char:
                quote_char = ""
        elif char in "'\"":
            quote_char = char
        elif char in "*?[":
            return True
    return False


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
    """Path arguments stay within the working dirs, wherever an earlier ``cd`` on the line
    may have moved the command. ``every_arg`` treats each non-flag argument as a path
    (for mkdir/cp…); otherwise only path-looking ones count. Values the shell would still
    expand ($VAR, `cmd`, {a,b}, ~user) are unknown, so outside; globs are expanded."""
    if not command.cwd_known or command.args_from_stdin:
        return False
    dirs = tuple(Path(d) for d in working_dirs)
    for base in (Path(cwd), *command.cd_dirs):
        paths = arg_paths(command, base, every_arg=every_arg)
        if paths is None:
            return False
        if not all(inside_any(spell(p, base, Path(home)), dirs) for p in paths):
            return False
    return True


def arg_paths(command: SimpleCommand, cwd: Path, *, every_arg: bool) -> list[str] | None:
    """The arguments of ``command`` that name files, as the shell would pass them (globs
    expanded against ``cwd``); None when one cannot be known before it runs."""
    paths: list[str] = []
    for word in command.words[1:]:
        candidate = _flag_value(word) if word.startswith("-") else word
        if candidate is None:
            continue
        if any(ch in candidate for ch in "$`{") or (
            candidate.startswith("~") and not candidate.startswith("~/") and candidate != "~"
        ):
            return None
        if any(ch in candidate for ch in "*?["):
            # The shell expands it before the command sees it; a match may be a symlink
            # out of the tree, a protected file, or a file a deny rule covers.
            paths.extend(expand_glob(candidate, cwd) or [candidate])
            continue
        # An existing name counts too: it may be a symlink that points out of the tree.
        looks_like_path = (
            "/" in candidate
            or candidate.startswith((".", "~"))
            or os.path.lexists(os.path.join(cwd, candidate))
        )
        if looks_like_path or (every_arg and not word.startswith("-")):
            paths.append(candidate)
    return paths


def expand_glob(pattern: str, cwd: Path) -> list[str]:
    """What bash's pathname expansion gives for ``pattern`` in ``cwd`` (no dotglob)."""
    if pattern.startswith("~/"):
        return []
    try:
        return sorted(glob.glob(pattern, root_dir=cwd))[:1000]
    except (OSError, ValueError):
        return []


def _flag_value(word: str) -> str | None:
    """The value glued to a flag (``--file=/x``, ``-f/x``), which may be a path too."""
    if "=" in word:
        return word.split("=", 1)[1]
    if not word.startswith("--") and len(word) > 2:
        return word[2:]
    return None
