"""What the file tools (Read, Edit, Write) share: absolute paths, the rule that a file is
changed only after the session has read its current content, and how a file is opened for
a change so that the file written is the one the permission check judged.

The permission check judges the path as named and where its symlinks lead; between that
and the write, a link on the last component could be swapped (a background command, a
checkout that ships ``notes.txt -> ~/.bashrc``). So Write and Edit open with
``O_NOFOLLOW`` and refuse a link, naming its target: a call on the target itself is
judged as that file. ``O_NONBLOCK`` and an ``fstat`` check keep a FIFO or a device from
blocking or receiving the write; sizes are checked on the open descriptor before a byte
is read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from loopwright.tools.base import SessionState
from loopwright.tools.untrusted_files import kind_of

# Edit loads the whole file; past this it refuses by size, before reading anything.
MAX_EDIT_FILE_BYTES = 32 * 1024 * 1024
_CHANGE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class ChangeRefused(Exception):
    """A file tool will not change this path; the message says why and what to do."""


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
    info = os.lstat(path)
    if info.st_mtime_ns != record.mtime_ns or info.st_size != record.size:
        return f"{path} changed on disk since it was last read; Read it again before you {verb} it"
    return None


def link_refusal(path: Path) -> str:
    """Why a symlink is not written through, and the call that would be judged instead."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return (
        f"{path} is a symbolic link (to {target}); Write and Edit do not follow a link. "
        f"To change the file it points to, pass its real path ({os.path.realpath(path)}), "
        "which the permission rules then judge as itself"
    )


def open_for_change(path: Path, flags: int, mode: int = 0o666) -> int:
    """A descriptor of the regular file at ``path`` itself, never through a link there;
    ``ChangeRefused`` for a link, a FIFO, a device or a directory."""
    try:
        fd = os.open(path, flags | _CHANGE_FLAGS, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ChangeRefused(link_refusal(path)) from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):  # a FIFO nobody reads; a directory
            raise ChangeRefused(f"{path} is not a regular file; pass the path of a file") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ChangeRefused(
            f"{path} is {kind_of(info.st_mode)}, not a regular file; Write and Edit only "
            "change regular files"
        )
    os.set_blocking(fd, True)
    return fd


def replace_content(fd: int, data: bytes) -> None:
    """Make the open file hold exactly ``data``."""
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], written)
    os.ftruncate(fd, len(data))


def write_new_or_existing(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write ``data`` to ``path`` (created if missing), never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else 0)
    fd = open_for_change(path, flags)
    try:
        replace_content(fd, data)
    finally:
        os.close(fd)
