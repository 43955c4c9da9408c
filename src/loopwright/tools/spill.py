"""Where tool output too long for the context is kept: with its session, not in /tmp.

``$LOOPWRIGHT_HOME/tool-output/<session-id>/`` holds the full text of every cut tool result
and the Bash tool's saved command output. It stays after the run, so a resumed session can
still Read what a result pointed at, and goes with the session
(``loopwright sessions prune --older-than``). Nothing is left in the system temp dir.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

from loopwright.private_files import make_private_dirs

# A session id becomes a directory name: anything but these characters is replaced.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def loopwright_home() -> Path:
    """``$LOOPWRIGHT_HOME``, default ``~/.loopwright`` (the same rule as the session stores)."""
    configured = os.environ.get("LOOPWRIGHT_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".loopwright"


def session_output_dir(session_id: str) -> Path:
    """The directory of one session's saved tool output (created, owner-only)."""
    name = _UNSAFE.sub("_", session_id).lstrip(".") or "no-session"
    path = loopwright_home() / "tool-output" / name
    make_private_dirs(path)
    # Where $LOOPWRIGHT_HOME sits in a working dir, a sandboxed command could swap the
    # directory for a link: output is never written through one.
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise OSError(
            f"{path} is not a directory of this user (a link or a planted file); remove it "
            "so loopwright can create it again"
        )
    return path


def spill_text(session_id: str, text: str) -> Path:
    """Save ``text`` in the session's output directory; returns the file."""
    import tempfile  # start-up: loads with the first long output

    fd, name = tempfile.mkstemp(
        prefix="tool-output-", suffix=".txt", dir=session_output_dir(session_id)
    )
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(text)
    return Path(name)


def remove_session_outputs(session_id: str) -> None:
    """Delete a session's saved tool output (when the session itself is deleted)."""
    name = _UNSAFE.sub("_", session_id).lstrip(".")
    if name:
        shutil.rmtree(loopwright_home() / "tool-output" / name, ignore_errors=True)


def remove_if_empty(directory: Path) -> None:
    """Remove ``directory`` and then its session directory, each only if empty."""
    for path in (directory, directory.parent):
        try:
            path.rmdir()
        except OSError:  # not empty (output was kept), or already gone
            return
