"""Files in the project that the repository's git config runs: pinned read-only too.

A config that is itself read-only is not enough when it points into the working tree —
``core.hooksPath = tools/hooks``, ``core.fsmonitor = ./scripts/watch.sh``, a filter's
``clean = ./bin/clean``, ``alias.x = !./x.sh``, ``include.path = ../shared.gitconfig``: a
command that rewrites that file runs code on the host at the next ``git status`` or
commit. So every program or file such a setting names inside the repository is pinned.

The parser reads the plain ``key = value`` form of the repository's own config files
(``config``, ``config.worktree``); a setting it cannot read is simply not pinned, and
the config files themselves stay read-only, so nothing new can be added.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from loopwright.tools.untrusted_files import read_repository_text

# Settings whose value is (or starts with) a program git runs, or a file git reads.
_RUNS = frozenset(
    {
        "core.hookspath",
        "core.fsmonitor",
        "core.sshcommand",
        "core.editor",
        "core.pager",
        "core.askpass",
        "diff.external",
        "sequence.editor",
        "gpg.program",
        "credential.helper",
        "include.path",
    }
)
# Last part of a key that names a program in any section (filter.x.clean, diff.x.textconv,
# merge.x.driver, difftool.x.cmd, gpg.ssh.program, includeIf.<cond>.path…).
_RUNS_SUFFIXES = frozenset(
    {"command", "clean", "smudge", "process", "textconv", "cmd", "driver", "program", "path"}
    | {"helper"}
)


def config_named_paths(repository: Path, git_dir: Path, *, existing: bool = True) -> list[Path]:
    """Paths inside ``repository`` that its git config runs or includes (with
    ``existing=False`` also the missing ones, which quarantine.py watches for)."""
    found: list[Path] = []
    for config in (git_dir / "config", git_dir / "config.worktree"):
        for key, value in _settings(config):
            path = _named_path(key, value, repository, git_dir)
            if path is None or not path.is_relative_to(repository) or path == repository:
                continue
            if path.exists() or not existing:
                found.append(path)
    return list(dict.fromkeys(found))


def _settings(config: Path) -> list[tuple[str, str]]:
    try:
        text = read_repository_text(config)
    except OSError:
        return []
    section = ""
    settings: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            header = line[1 : line.find("]")] if "]" in line else line[1:]
            name, _, sub = header.partition(" ")
            section = name.lower() + ("." + sub.strip().strip('"') if sub else "")
            continue
        if not line or line[0] in "#;" or "=" not in line:
            continue
        key, _, value = line.partition("=")
        settings.append((f"{section}.{key.strip().lower()}", value.strip()))
    return settings


def _named_path(key: str, value: str, repository: Path, git_dir: Path) -> Path | None:
    last = key.rsplit(".", 1)[-1]
    is_alias = key.startswith("alias.") and value.startswith("!")
    if key not in _RUNS and last not in _RUNS_SUFFIXES and not is_alias:
        return None
    text = value[1:] if is_alias else value
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    if not words or "/" not in words[0]:
        return None
    program = words[0]
    if program.startswith("~"):
        return None  # the user's home: outside the project
    # Includes are relative to the config file; programs run in the worktree's top.
    base = git_dir if key.endswith(".path") and key.startswith("include") else repository
    return (base / program).resolve()


def included_configs(home: Path, working_dirs: tuple[Path, ...]) -> list[Path]:
    """Files that git reads as configuration because a config includes them
    (``include.path``, ``includeIf.<cond>.path``): from ``~/.gitconfig``,
    ``~/.config/git/config`` and each working dir's ``.git/config``. They run code as
    surely as the config itself, so writes to them are protected too."""
    configs = [home / ".gitconfig", home / ".config" / "git" / "config"]
    configs += [directory / ".git" / "config" for directory in working_dirs]
    found: list[Path] = []
    for config in configs:
        for key, value in _settings(config):
            if not (key.startswith(("include.", "includeif.")) and key.endswith(".path")):
                continue
            target = value.strip().strip('"')
            if not target:
                continue
            # ``~/`` is HOME; anything else is relative to the including file.
            path = home / target[2:] if target.startswith("~/") else config.parent / target
            found.append(Path(os.path.normpath(path)))
    return list(dict.fromkeys(found))
