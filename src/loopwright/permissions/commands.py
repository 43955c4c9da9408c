"""Which shell commands only read, and which are the file operations acceptEdits approves.

Both lists are deliberately short: a command missing here just needs a rule or a
decision, while a wrong entry would approve writes silently.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from loopwright.permissions.paths.patterns import inside_any, spell
from loopwright.permissions.shell.readonly_use import ReadOnlyUse, read_only_use
from loopwright.permissions.shell.results import ShellAnalysis, SimpleCommand

ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "mv", "cp"})
_SYSTEM_BIN_DIRS = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/")


def command_read_only_use(command: SimpleCommand) -> ReadOnlyUse | None:
    """What the command reads, when it is known to only read; None otherwise."""
    if not command.words:
        return ReadOnlyUse()
    if "/" in command.name and not os.path.normpath(command.name).startswith(_SYSTEM_BIN_DIRS):
        return None  # ./tools/cat (or /bin/../tmp/cat) is whatever is there, not cat
    if command.args_from_stdin:
        return None  # xargs: the real arguments arrive on stdin
    use = read_only_use(command.words)
    if use is not None and name_is_git(command) and (command.cd_dirs or not command.cwd_known):
        return None  # git in another directory runs that repository's hooks/config
    return use


def name_is_git(command: SimpleCommand) -> bool:
    return os.path.basename(command.name) == "git"


def is_read_only(command: SimpleCommand) -> bool:
    return command_read_only_use(command) is not None


def shell_is_read_only(analysis: ShellAnalysis) -> bool:
    """No redirects to files, nothing unsafe, every subcommand read-only."""
    return (
        analysis.safe
        and not analysis.redirect_targets
        and all(is_read_only(c) for c in analysis.commands)
    )


def use_inside(
    command: SimpleCommand,
    use: ReadOnlyUse,
    cwd: os.PathLike[str] | str,
    home: os.PathLike[str] | str,
    working_dirs: tuple[os.PathLike[str], ...],
) -> bool:
    """Every path a read-only command names lies in the working dirs, from every
    directory an earlier ``cd`` on the line may have moved it to (globs expanded)."""
    if not command.cwd_known:
        return False
    dirs = tuple(Path(d) for d in working_dirs)
    for base in (Path(cwd), *command.cd_dirs):
        for path in use.paths:
            if path.startswith("~") and not (path == "~" or path.startswith("~/")):
                return False
            expanded = expand_glob(path, base) if any(c in path for c in "*?[") else []
            for candidate in (path, *expanded):
                if not inside_any(spell(candidate, base, Path(home)), dirs):
                    return False
    return True


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
