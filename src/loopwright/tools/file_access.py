"""What the file tools (Read, Edit, Write) share: absolute paths, and the rule that a
file is changed only after the session has read its current content."""

from __future__ import annotations

import os
from pathlib import Path

from loopwright.tools.base import SessionState


def absolute_path(raw: object, field_name: str = "file_path") -> Path | str:
    """The normalised absolute path, or a message saying why ``raw`` is not one."""
    if not isinstance(raw, str) or not raw:
        return f"{field_name} must be a non-empty string"
    if "\x00" in raw:
        return f"{field_name} contains a NUL byte; remove it and try again"
    expanded = os.path.expanduser(raw)
    if not os.path.isabs(expanded):
        return f"{field_name} must be an absolute path, got {raw!r}"
    return Path(os.path.normpath(expanded))


def stale_read_problem(path: Path, state: SessionState, verb: str) -> str | None:
    """Why ``path`` may not be changed now, or None when the session's read is current."""
    record = state.read_files.get(str(path))
    if record is None:
        return f"{path} has not been read in this session; Read it before you {verb} it"
    if record.partial:
        return (
            f"only part of {path} was read (the view was cut short); Read it with "
            f"offset/limit covering the part you change before you {verb} it"
        )
    stat = path.stat()
    if stat.st_mtime_ns != record.mtime_ns or stat.st_size != record.size:
        return f"{path} changed on disk since it was last read; Read it again before you {verb} it"
    return None
