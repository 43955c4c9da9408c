"""Protected paths that a sandboxed command created are moved out of the working dirs.

The sandbox pins protected paths that exist (protected.py), but it cannot pin one that
does not exist yet without creating it on the host. So around every sandboxed command —
foreground and background — the host takes a snapshot of the protected names at the top
of each working dir (inside its ``.git`` too, and the files its git config runs); after
the command ends it moves every one that appeared (or whose identity changed, e.g. a
symlink swapped for a real file) to ``<session data dir>/quarantine/<time>-<pid>/``, and
the tool result says so.

Residual risk, accepted and documented:
- Between creation and the check (while the command runs; for a background shell, until
  it exits) a planted file is on the host. A host process reading it in that window — the
  user running ``git status`` beside a long-running background command, say — runs it.
- Only the top of each working dir is watched: a ``.git`` or ``.claude`` created in a
  subdirectory is not moved (it acts only when git or an agent is started there).
- A protected path that the *user* creates on the host while a command runs is moved too
  (it cannot be told apart); the result names it and where it went.
- A new ``.git`` is quarantined whole, so ``git init`` must run outside the sandbox.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from loopwright.permissions.paths.git_config_paths import config_named_paths
from loopwright.permissions.paths.protected import (
    GIT_DIR_PROTECTED,
    git_dirs,
    is_bare_repository,
    submodule_dirs,
    top_level_names,
)
from loopwright.private_files import make_private_dirs

# (device, inode, file type): enough to tell "the same entry" from "a new one".
Identity = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Quarantined:
    """One protected path a command created, and where it went (None: could not move)."""

    path: Path
    moved_to: Path | None
    problem: str = ""


def watched_paths(working_dir: Path) -> list[Path]:
    """Protected paths of one working dir, parents before children."""
    top = [working_dir / name for name in top_level_names()]
    inside_git = [working_dir / ".git" / name for name in GIT_DIR_PROTECTED]
    submodules = [submodule / ".git" for submodule in submodule_dirs(working_dir)]
    run_by_git = [
        path
        for git_dir in git_dirs(working_dir)
        for path in config_named_paths(working_dir, git_dir, existing=False)
    ]
    bare = [working_dir / n for n in GIT_DIR_PROTECTED] if is_bare_repository(working_dir) else []
    return [*top, *inside_git, *submodules, *run_by_git, *bare]


def _identity(path: Path) -> Identity | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode))


class ProtectedPathsWatch:
    """A before-snapshot; ``settle()`` after the command moves what appeared since."""

    def __init__(self, working_dirs: Sequence[Path], quarantine_dir: Path) -> None:
        self._quarantine_dir = quarantine_dir
        self._before = {
            path: _identity(path) for root in working_dirs for path in watched_paths(root)
        }

    def settle(self) -> str:
        """Quarantine what the command created; a note for the tool result, or ''."""
        return describe(self.quarantine_new())

    def quarantine_new(self) -> list[Quarantined]:
        moved: list[Quarantined] = []
        for path, before in self._before.items():
            if any(path.is_relative_to(done.path) for done in moved):
                continue  # it went with its parent
            now = _identity(path)
            if now is None or now == before:
                continue
            moved.append(self._move(path))
        return moved

    def _move(self, path: Path) -> Quarantined:
        batch = self._quarantine_dir / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        # The absolute path under the batch dir: unique, and says where it came from.
        destination = batch / str(path).lstrip("/")
        suffix = 0
        while destination.exists() or destination.is_symlink():
            suffix += 1
            destination = destination.with_name(f"{path.name}.{suffix}")
        try:
            make_private_dirs(destination.parent)
            _move_untrusted(path, destination)
        except OSError as exc:
            return Quarantined(path, None, str(exc))
        return Quarantined(path, destination)


# A cross-filesystem move copies what the command made: only this much, of plain files.
MAX_COPY_BYTES = 64 * 1024 * 1024
MAX_COPY_ENTRIES = 10_000


def _move_untrusted(path: Path, destination: Path) -> None:
    """Rename ``path``; across filesystems copy it only when it is small and holds nothing
    but directories, regular files and symlinks (a FIFO would block the copy, a sparse
    terabyte would fill the disk)."""
    try:
        os.rename(path, destination)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    _check_copyable(path)
    shutil.move(str(path), str(destination))


def _check_copyable(path: Path) -> None:
    total, entries = 0, 0
    pending = [path]
    while pending:
        current = pending.pop()
        info = current.lstat()
        entries += 1
        if stat.S_ISDIR(info.st_mode):
            pending.extend(current.iterdir())
        elif stat.S_ISREG(info.st_mode):
            total += info.st_size
        elif not stat.S_ISLNK(info.st_mode):
            raise OSError(errno.EINVAL, f"{current} is not a file, directory or symlink")
        if total > MAX_COPY_BYTES or entries > MAX_COPY_ENTRIES:
            raise OSError(errno.EFBIG, "too large to copy to the quarantine dir")


def describe(quarantined: Sequence[Quarantined]) -> str:
    if not quarantined:
        return ""
    lines = ["", "Protected paths created by this command were moved out of the project:"]
    for item in quarantined:
        if item.moved_to is not None:
            lines.append(f"- {item.path} → {item.moved_to}")
        else:
            lines.append(
                f"- {item.path} could NOT be moved ({item.problem}); delete it before "
                "running git or an agent in this directory"
            )
    lines.append(
        "Sandboxed commands cannot create git config or hooks, .git, agent settings "
        "(.claude/, .loopwright/, .mcp.json), shell profiles or hook-manager configs. Use "
        "the Write or Edit tool (it asks for permission), or ask the user to do it."
    )
    return "\n".join(lines)
