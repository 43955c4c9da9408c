"""Options through which a program runs another program, or redirects where it runs.

An allow rule such as ``Bash(git *)`` or ``Bash(tar *)`` names a program; its ``*`` must
not also approve ``git -c core.fsmonitor=./x status`` or ``tar --to-command=sh``. When a
command uses one of these, an allow rule matches only if it spells that option out itself
(``Bash(git -c core.editor=true commit *)``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# Word prefixes that make the program run something else (or act on another repository,
# whose hooks and config then run).
_RUNNER_OPTIONS: dict[str, tuple[str, ...]] = {
    "git": (
        "-c",
        "--config-env",
        "--exec-path",
        "-C",
        "--git-dir",
        "--work-tree",
        "--upload-pack",
        "--receive-pack",
        "--ext-diff",
        "--textconv",
        "--exec",
        "-x",
        "--extcmd",
        "--tool",
        "--open-files-in-pager",
        "-O",
        "--run",
    ),
    "tar": (
        "--to-command",
        "--checkpoint-action",
        "-I",
        "--use-compress-program",
        "--rsh-command",
        "--info-script",
        "--new-volume-script",
        "-F",
    ),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "ssh": ("-o", "-F"),
    "scp": ("-o", "-F", "-S"),
    "sftp": ("-o", "-F", "-S"),
    "zip": ("-TT", "--unzip-command"),
    "sort": ("--compress-program",),
    "rg": ("--pre", "--hostname-bin", "-z", "--search-zip"),
    "npm": ("--script-shell", "-c", "--call"),
    "man": ("-P", "--pager", "-H", "--html"),
    "less": ("-k", "--lesskey-file"),
    "sed": ("-f", "--file"),
    "awk": ("-f", "--file"),
    "gawk": ("-f", "--file", "-l", "--load"),
    "vim": ("-c", "--cmd", "-S"),
    "vi": ("-c", "--cmd", "-S"),
}
# Subcommands that run a program named in their arguments or config.
_RUNNER_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset(
        {"difftool", "mergetool", "filter-branch", "bisect", "submodule", "config", "hook"}
    ),
    "npm": frozenset({"exec", "x"}),
}
# Little languages with a way to run commands.
_SCRIPT_RUNNERS: dict[str, tuple[str, ...]] = {
    "awk": ("system", "|", "getline"),
    "gawk": ("system", "|", "getline", "@load"),
    "mawk": ("system", "|", "getline"),
    "sed": (),
}


def runner_option(words: Sequence[str]) -> str | None:
    """The word through which this command would run another program, if any."""
    if not words:
        return None
    name = os.path.basename(words[0])
    prefixes = _RUNNER_OPTIONS.get(name, ())
    for word in words[1:]:
        if any(word == p or word.startswith(_glued(p)) for p in prefixes):
            return word
        if word in _RUNNER_SUBCOMMANDS.get(name, ()):
            return word
    script_markers = _SCRIPT_RUNNERS.get(name)
    if script_markers is not None:
        for word in words[1:]:
            if not word.startswith("-") and _script_may_run(name, word, script_markers):
                return word
    return None


def _glued(prefix: str) -> str | tuple[str, ...]:
    if prefix.startswith("--"):
        return prefix + "="
    # -cNAME=value, -C/dir: a short option with its value glued on.
    return prefix


def _script_may_run(name: str, script: str, markers: tuple[str, ...]) -> bool:
    if name != "sed":
        return any(marker in script for marker in markers)
    return _sed_may_run(script)


# sed's ``e`` command (after an optional address) runs its argument as a command.
_SED_E_COMMAND = re.compile(r"(?:^|[;{}\n])\s*(?:[0-9$,]+|/[^/]*/)?\s*!?\s*[eRrWw](?:\s|$)")


def _sed_may_run(script: str) -> bool:
    """A sed script with an ``e``/``r``/``w`` command, or an ``s`` command with the ``e``
    or ``w`` flag (``s/x/id/e`` runs ``id``). Unusual delimiters are read as written."""
    if _SED_E_COMMAND.search(script):
        return True
    index = 0
    while (index := script.find("s", index)) >= 0:
        if index + 1 >= len(script):
            break
        delimiter = script[index + 1]
        if delimiter.isalnum() or delimiter in " \n\\":
            index += 1
            continue
        parts = re.split(r"(?<!\\)" + re.escape(delimiter), script[index + 2 :], maxsplit=2)
        if len(parts) == 3:
            flags = re.match(r"[0-9gipmMIeEw]*", parts[2])
            if flags is not None and any(f in flags.group(0) for f in "ew"):
                return True
        index += 1
    return False
