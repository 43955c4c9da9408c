"""Starting shell commands in their own process group, and ending the whole group.

Every command runs with ``start_new_session=True`` so it leads a fresh process group: on a
timeout, an interrupt or session end, one ``killpg`` reaches the command and everything it
spawned. Output goes straight to a file (not a pipe), so a grandchild that keeps the
descriptor open can never block us waiting for EOF, and huge output never sits in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
from pathlib import Path
from typing import IO, Any, Protocol

from loopwright import processes
from loopwright.tools.git_discovery import pinned_git_env

# How long a group gets between SIGTERM and SIGKILL.
TERMINATE_GRACE_SECONDS = 1.0
CWD_FILE_ENV = "LOOPWRIGHT_CWD_FILE"
NON_INTERACTIVE_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
# Variables that would make the shell run or resolve things the permission check never saw:
# BASH_ENV/ENV are sourced before the command, CDPATH redirects a relative ``cd``.
SHELL_STEERING_ENV = ("BASH_ENV", "ENV", "CDPATH", "GLOBIGNORE", "BASHOPTS", "SHELLOPTS")


class CommandWrapper(Protocol):
    """Transforms a command before it is spawned (the OS sandbox implements this)."""

    def wrap(
        self, argv: list[str], env: dict[str, str], cwd: str
    ) -> tuple[list[str], dict[str, str]]: ...


def bash_executable() -> str:
    return shutil.which("bash") or "/bin/bash"


def shell_script(command: str, cwd_file: Path | None) -> str:
    """The script bash runs: the command, plus an EXIT trap that records the final cwd.

    An EXIT trap keeps the command's own exit status and also fires after ``exit N``.
    """
    if cwd_file is None:
        return command
    # The path is spelled out, not read from a variable: the command could reassign a
    # variable and turn the trap into a write of any file it names.
    target = shlex.quote(str(cwd_file))
    trap = f"trap {shlex.quote(f'builtin pwd -P > {target} 2>/dev/null')} EXIT\n"
    return trap + command


async def spawn_shell(
    command: str,
    cwd: Path,
    output: IO[bytes],
    *,
    cwd_file: Path | None,
    wrapper: Any | None,
) -> asyncio.subprocess.Process:
    """Start ``command`` under bash in its own session, stdout+stderr into ``output``."""
    env = dict(os.environ)
    # Nothing can answer a pager or a credential prompt: make such commands finish instead.
    for name, value in NON_INTERACTIVE_ENV.items():
        env.setdefault(name, value)
    for name in SHELL_STEERING_ENV:
        env.pop(name, None)
    if cwd_file is not None:
        env[CWD_FILE_ENV] = str(cwd_file)
    env.update(pinned_git_env(env, cwd))  # no planted bare repository is ever used
    argv = [bash_executable(), "-c", shell_script(command, cwd_file)]
    if wrapper is not None:
        argv, env = wrapper.wrap(argv, env, str(cwd))
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=str(cwd),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=output,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    )
    try:
        process = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # The child may already be running (it can even have done work) when the await is
        # cancelled: finish starting it, then kill its group, so nothing is left behind.
        with contextlib.suppress(Exception):
            await kill_process_group(await starting)
        raise
    processes.track(process.pid)  # ended with the session, or when this process ends
    return process


def signal_group(pgid: int, signum: int) -> bool:
    """Send ``signum`` to a process group; False when the group no longer exists."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in the group.

    ``killpg(pgid, 0)`` also succeeds for zombies that an init without reaping keeps
    around, so on Linux the members' states are read from /proc instead.
    """
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return signal_group(pgid, 0)
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command name: state, ppid, pgrp, …
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


async def kill_process_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the command's group, SIGKILL it after a grace period, and reap the leader.

    Safe to call from an ``except CancelledError`` block: the waits here are shielded so a
    second cancellation cannot leave the group running or the leader unreaped.
    """
    pgid = process.pid  # the leader of a new session has pgid == pid
    signal_group(pgid, signal.SIGTERM)
    try:
        await asyncio.shield(_wait_for_group_exit(process, TERMINATE_GRACE_SECONDS))
    except asyncio.CancelledError:
        signal_group(pgid, signal.SIGKILL)
        raise
    signal_group(pgid, signal.SIGKILL)
    processes.forget(pgid)
    await asyncio.shield(process.wait())


async def _wait_for_group_exit(process: asyncio.subprocess.Process, deadline: float) -> None:
    """Wait until the leader has exited and no member of its group is left, or the deadline."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + deadline
    try:
        await asyncio.wait_for(process.wait(), timeout=deadline)
    except TimeoutError:
        return
    delay = 0.005
    while group_alive(process.pid) and loop.time() < give_up_at:
        await asyncio.sleep(delay)  # polling with a deadline: there is no event for this
        delay = min(delay * 2, 0.1)
