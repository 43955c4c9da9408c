"""The process groups this process started (Bash commands, background shells, command
hooks), so that every one of them ends with the session — and with this process.

Each child leads its own process group (``start_new_session``), so one ``killpg`` reaches
it and everything it started. Groups are tracked here while they may still run, and
forgotten once they have been killed or are gone: the set holds live groups only, never
one entry per session. When the process ends — interpreter exit, or SIGTERM/SIGHUP while
nobody else handles them — every tracked group gets SIGTERM, then SIGKILL after a grace
period. (SIGKILL of this process cannot be caught; its children are then re-parented.)
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections.abc import Iterable
from types import FrameType

# How long groups get between SIGTERM and SIGKILL when this process ends.
EXIT_GRACE_SECONDS = 2.0
_PASSED_ON = (signal.SIGTERM, signal.SIGHUP)

_live: set[int] = set()
_installed = False


def track(pgid: int) -> None:
    """Remember a process group this process started (its leader's pid)."""
    _install_once()
    for gone in [g for g in _live if not _exists(g)]:
        _live.discard(gone)
    _live.add(pgid)


def forget(pgid: int) -> None:
    """The group was killed (or ended): nothing to do for it at exit."""
    _live.discard(pgid)


def child_session_leaders() -> frozenset[int]:
    """This process's live children that lead a session of their own (``setsid``, as
    ``start_new_session`` makes them): the groups a library started for us without
    telling its pid (the MCP SDK's stdio servers). Empty where /proc is not there."""
    me = os.getpid()
    found: set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return frozenset()
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, pgrp, session.
        if fields[0] != b"Z" and int(fields[1]) == me and int(fields[3]) == int(name):
            found.add(int(name))
    return frozenset(found)


def forget_ended(pgids: Iterable[int]) -> None:
    """Forget those of ``pgids`` that have ended (a live one stays tracked)."""
    for pgid in pgids:
        if not _exists(pgid):
            _live.discard(pgid)


def tracked_groups() -> frozenset[int]:
    return frozenset(g for g in _live if _exists(g))


def end_all(grace: float = EXIT_GRACE_SECONDS) -> None:
    """SIGTERM every tracked group, wait up to ``grace`` seconds, SIGKILL what is left."""
    groups = [g for g in _live if _signal(g, signal.SIGTERM)]
    deadline = time.monotonic() + grace
    delay = 0.005
    while groups and time.monotonic() < deadline:
        time.sleep(delay)  # no event says a group is empty; this runs only while stopping
        delay = min(delay * 2, 0.1)
        groups = [g for g in groups if _exists(g)]
    for group in groups:
        _signal(group, signal.SIGKILL)
    _live.clear()


def _signal(pgid: int, signum: int) -> bool:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _exists(pgid: int) -> bool:
    return _signal(pgid, 0)


def _install_once() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(end_all)
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    for signum in _PASSED_ON:
        # Only where nothing else listens: an application's own handler stays its own.
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _end_then_die)


def _end_then_die(signum: int, frame: FrameType | None) -> None:
    """End the children, then die of the same signal, as without this handler."""
    end_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
