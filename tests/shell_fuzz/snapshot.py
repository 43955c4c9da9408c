"""A tree snapshot of the run directory, before and after: the fallback when strace is
missing, and a cross-check when it is not (a change no traced call explains is reported
too). Directory mtimes are left out: creating a file inside one is already seen."""

from __future__ import annotations

import os
from pathlib import Path

Snapshot = dict[str, tuple[str, int, int, int, str]]


def take(root: Path, skip: tuple[Path, ...]) -> Snapshot:
    skipped = {str(p) for p in skip}
    state: Snapshot = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(directory, d) not in skipped]
        for name in (*dirs, *files):
            path = os.path.join(directory, name)
            state[path] = _entry(path)
    return state


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Paths created, removed or modified between the two snapshots."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def _entry(path: str) -> tuple[str, int, int, int, str]:
    info = os.lstat(path)
    if os.path.islink(path):
        return ("link", 0, 0, info.st_mode, os.readlink(path))
    if os.path.isdir(path):
        return ("dir", 0, 0, info.st_mode, "")
    return ("file", info.st_size, info.st_mtime_ns, info.st_mode, "")
