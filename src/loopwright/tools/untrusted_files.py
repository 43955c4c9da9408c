"""Opening files that something else may have replaced: the host reads them as input.

A sandboxed command can write where the host later reads (its output file, the cwd
file, anything in the working dirs). It can swap such a file for a symlink to a secret
the sandbox masks (the host, unmasked, would read the secret and hand it to the model),
or for a FIFO (a blocking open or read would wait forever, past every timeout). So:

- files the host made itself are read through the descriptor it made them with
  (``read_at``), never reopened by name;
- anything else is opened with ``O_NONBLOCK`` (a FIFO cannot block the open), with
  ``O_NOFOLLOW`` where the host expects its own file (a link on the last component is
  refused), and ``fstat``-checked to be a regular file before a byte is read;
- every read is bounded: a caller says how many bytes it will take at most.

Reading a regular file cannot block indefinitely on a local filesystem, so bounding the
size bounds the time.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_BASE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
READ_CHUNK = 1024 * 1024


class NotARegularFile(OSError):
    """The path is a symlink, a FIFO, a socket, a device or a directory."""


def open_regular(path: str | Path, *, follow_symlinks: bool = False) -> int:
    """A read-only descriptor of the regular file at ``path`` (the caller closes it)."""
    flags = _BASE_FLAGS | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise NotARegularFile(
                errno.ELOOP, "it is a symbolic link, not the file loopwright made", str(path)
            ) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(errno.EINVAL, f"it is {kind_of(info.st_mode)}", str(path))
        # Back to blocking reads: O_NONBLOCK only had to keep the open from hanging.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_at(fd: int, limit: int, offset: int = 0) -> bytes:
    """At most ``limit`` bytes from ``offset`` (the descriptor's own offset is untouched)."""
    parts: list[bytes] = []
    taken = 0
    while taken < limit:
        chunk = os.pread(fd, min(READ_CHUNK, limit - taken), offset + taken)
        if not chunk:
            break
        parts.append(chunk)
        taken += len(chunk)
    return b"".join(parts)


def read_regular(path: str | Path, limit: int, *, follow_symlinks: bool = False) -> bytes:
    """The first ``limit`` bytes of the regular file at ``path``; ``NotARegularFile`` else."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        return read_at(fd, limit)
    finally:
        os.close(fd)


def still_named(fd: int, path: str | Path) -> bool:
    """Whether ``path`` (not followed) is still the file ``fd`` has open."""
    try:
        named = os.lstat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words for an error message."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


# Files git reads (a config, a gitfile, .gitmodules) are small; this bound only stops a
# planted giant from stalling a permission check.
GIT_FILE_LIMIT = 64 * 1024 * 1024


def read_repository_text(path: str | Path, limit: int = GIT_FILE_LIMIT) -> str:
    """A small text file of the repository's, read as git would (links followed) but
    never a FIFO or a device: ``NotARegularFile`` (an OSError) for those."""
    return read_regular(path, limit, follow_symlinks=True).decode("utf-8", "replace")
