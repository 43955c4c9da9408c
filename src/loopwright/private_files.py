"""Files that hold a conversation or a credential: owner-only, in owner-only directories.

Transcripts, the SQLite store (and its ``-wal`` / ``-shm``, which SQLite creates with the
database file's mode), lock files, the REPL history and saved tool output are readable by
their owner alone: files 0600, and every directory loopwright creates for them 0700 — so
``$LOOPWRIGHT_HOME`` itself, when loopwright creates it, keeps everything under it private.
Directories that already exist are left as they are: they may be the user's own.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def make_private_dirs(directory: Path) -> Path:
    """``mkdir -p`` where each directory created is 0700 (``Path.mkdir(parents=True)``
    gives the parents the default mode)."""
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass  # made meanwhile by another process: theirs to have set the mode of
    return directory


def create_private_file(path: Path) -> Path:
    """Create ``path`` empty and 0600 if it does not exist (its directory made private)."""
    make_private_dirs(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return path
    os.close(fd)
    return path
