"""Helpers for asserting that processes are really gone."""

from __future__ import annotations

import time
from pathlib import Path


def process_state(pid: int) -> str | None:
    """The /proc state letter of ``pid`` (R, S, Z…), or None when it no longer exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def wait_until_dead(pid: int, timeout: float = 5.0) -> bool:
    """True once ``pid`` is gone or a zombie that is no longer ours to reap."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process_state(pid) in (None, "Z", "X"):
            return True
        time.sleep(0.01)
    return False


def wait_for_file(path: Path, timeout: float = 5.0) -> str:
    """The content of ``path`` once a process has written it (non-empty, newline-ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            text = path.read_text()
            if text.endswith("\n"):
                return text.strip()
        time.sleep(0.01)
    raise AssertionError(f"{path} was not written within {timeout} s")
