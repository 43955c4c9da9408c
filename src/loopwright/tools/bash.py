"""The Bash tool: one command per call, with a working directory that persists.

Each call runs ``bash -c`` in the session's current directory; an EXIT trap writes the
final ``pwd`` to a side file, which becomes the next call's directory. Environment changes
do not persist (each call is a new process), matching what users of coding agents expect.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.bash_background import background_shells
from loopwright.tools.bash_process import kill_process_group, spawn_shell
from loopwright.tools.command_wrapper import watch_protected_paths
from loopwright.tools.spill import remove_if_empty, session_output_dir
from loopwright.tools.untrusted_files import read_at, read_regular, still_named

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_INLINE_OUTPUT_CHARS = 30_000
# What the model sees of an over-long output: the start (what ran) and the end (how it ended).
HEAD_CHARS = 20_000
TAIL_CHARS = 10_000
# Never decode more than this much of an output file into memory.
MAX_READBACK_BYTES = 64 * 1024 * 1024
# The cwd file holds one path; anything longer is not what the EXIT trap wrote.
MAX_CWD_FILE_BYTES = 64 * 1024
# A command printing more than this is runaway (`yes`, a log loop): kill it before the disk fills.
MAX_OUTPUT_FILE_BYTES = 1024 * 1024 * 1024
OUTPUT_CHECK_SECONDS = 0.5

BASH_DESCRIPTION = """\
Run a bash command and return its combined stdout and stderr with the exit code.

- The working directory persists between calls (a `cd` carries over); environment \
variables and shell state do not.
- timeout is in milliseconds: default 120000 (2 minutes), at most 600000 (10 minutes). On \
timeout the command and every process it started are killed.
- Output over about 30000 characters is shortened to its start and end; the full output is \
saved to a file whose path the result gives (Read or Grep it).
- Set run_in_background to start a long-running command (a server, a watcher) and get a \
shell id at once; read its output with BashOutput and stop it with KillShell.
- Prefer Read, Edit, Write, Glob and Grep over cat, sed, echo >, find and grep."""

BASH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The command to run."},
        "timeout": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_TIMEOUT_MS,
            "description": "Timeout in milliseconds (default 120000, max 600000).",
        },
        "description": {
            "type": "string",
            "description": "A few words saying what the command does (shown to the user).",
        },
        "run_in_background": {
            "type": "boolean",
            "description": "Start the command in the background and return a shell id.",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


def output_directory(ctx: ToolContext) -> Path:
    """The session's directory for command output files, under $LOOPWRIGHT_HOME: a saved
    long output outlives the run (a resumed session can still Read it) and goes with the
    session (sessions prune), never piling up in /tmp."""
    existing = ctx.state.resources.get("bash_output_dir")
    if isinstance(existing, OutputDirectory) and existing.path.is_dir():
        return existing.path
    created = session_output_dir(ctx.session_id) / "bash"
    created.mkdir(exist_ok=True, mode=0o700)
    ctx.state.resources["bash_output_dir"] = OutputDirectory(created)
    return created


@dataclass(frozen=True, slots=True)
class OutputDirectory:
    """The session's Bash output directory; at session end it goes if nothing was kept."""

    path: Path

    async def aclose(self) -> None:
        await asyncio.to_thread(remove_if_empty, self.path)


def render_output(raw: bytes, saved_to: Path) -> tuple[str, bool]:
    """The text the model sees, and whether the saved file must be kept for the rest."""
    text = raw.decode("utf-8", errors="replace")
    if len(text) <= MAX_INLINE_OUTPUT_CHARS:
        return (text, False)
    omitted = len(text) - HEAD_CHARS - TAIL_CHARS
    shortened = (
        f"{text[:HEAD_CHARS]}\n\n… [{omitted} characters omitted; the full output "
        f"({len(text)} characters) is saved at {saved_to} — Read or Grep it] …\n\n"
        f"{text[-TAIL_CHARS:]}"
    )
    return (shortened, True)


def _timeout_ms(raw: object) -> int | str:
    if raw is None:
        return DEFAULT_TIMEOUT_MS
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        return f"timeout must be a positive number of milliseconds, got {raw!r}"
    return min(raw, MAX_TIMEOUT_MS)


def _next_cwd(cwd_file: Path, ctx: ToolContext) -> tuple[Path, str]:
    """The directory the command ended in, and a note when it was not accepted."""
    try:
        # The command can replace this file (its directory is writable in the sandbox):
        # a symlink or a FIFO there is refused, never followed or waited on.
        raw = read_regular(cwd_file, MAX_CWD_FILE_BYTES)
    except OSError:
        return (ctx.state.cwd, "")
    reported = raw.decode("utf-8", errors="replace").strip()
    if not reported or not os.path.isdir(reported):
        return (ctx.state.cwd, "")
    candidate = Path(reported)
    roots = ctx.working_dirs
    if roots and not any(candidate.is_relative_to(r.resolve()) for r in roots):
        reset_to = roots[0]
        return (reset_to, f"\nShell cwd was reset to {reset_to} (outside the working dirs)")
    return (candidate, "")


StopReason = Literal["exited", "timed_out", "output_too_large"]


@dataclass(frozen=True, slots=True)
class _Finished:
    exit_code: int | None
    stopped: StopReason


async def _wait_watching_output(
    process: asyncio.subprocess.Process, output_fd: int, timeout_s: float, max_bytes: int
) -> _Finished:
    """Wait for the exit, checking now and then that the output file is not running away."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            return _Finished(None, "timed_out")
        try:
            code = await asyncio.wait_for(process.wait(), min(remaining, OUTPUT_CHECK_SECONDS))
        except TimeoutError:
            if os.fstat(output_fd).st_size > max_bytes:
                return _Finished(None, "output_too_large")
            continue
        return _Finished(code, "exited")


async def _run_to_end(
    process: asyncio.subprocess.Process, output_fd: int, timeout_s: float, max_bytes: int
) -> _Finished:
    """Wait for the command; kill its whole group on timeout, runaway output or cancellation."""
    try:
        finished = await _wait_watching_output(process, output_fd, timeout_s, max_bytes)
    except asyncio.CancelledError:
        await kill_process_group(process)
        raise
    if finished.stopped != "exited":
        await kill_process_group(process)
    return finished


@dataclass(frozen=True, slots=True)
class BashTool(ToolBase):
    """Runs shell commands; foreground or, with run_in_background, as a background shell."""

    name: str = "Bash"
    description: str = BASH_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: BASH_SCHEMA)
    read_only: bool = False
    max_output_file_bytes: int = MAX_OUTPUT_FILE_BYTES

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = input.get("command")
        if not isinstance(command, str) or not command.strip():
            return ToolResult.error("command must be a non-empty string")
        timeout = _timeout_ms(input.get("timeout"))
        if isinstance(timeout, str):
            return ToolResult.error(timeout)
        if not ctx.state.cwd.is_dir():
            return ToolResult.error(f"the working directory {ctx.state.cwd} no longer exists")
        wrapper = ctx.services.command_wrapper
        if input.get("run_in_background") is True:
            shells = background_shells(ctx.state)
            shell_id = await shells.start(command, ctx.state.cwd, output_directory(ctx), wrapper)
            return ToolResult(
                f"Started background shell {shell_id} in {ctx.state.cwd}. Read its output "
                f'with BashOutput(bash_id="{shell_id}"); stop it with KillShell.'
            )
        return await self._run_foreground(command, timeout, ctx, wrapper)

    async def _run_foreground(
        self, command: str, timeout_ms: int, ctx: ToolContext, wrapper: Any | None
    ) -> ToolResult:
        # Snapshot protected paths before the command; after it (whatever way it ended,
        # cancellation included) the sandbox moves away any the command created.
        watch = watch_protected_paths(wrapper)
        try:
            result = await self._run_command(command, timeout_ms, ctx, wrapper)
        finally:
            note = watch.settle() if watch is not None else ""
        if not note:
            return result
        if not ctx.state.cwd.is_dir() and ctx.working_dirs:
            # The shell ended inside what was just moved away (`mkdir .claude && cd .claude`).
            ctx.state.cwd = ctx.working_dirs[0]
            note += f"\nShell cwd was reset to {ctx.state.cwd}"
        return ToolResult(f"{result.content}{note}", is_error=result.is_error)

    async def _run_command(
        self, command: str, timeout_ms: int, ctx: ToolContext, wrapper: Any | None
    ) -> ToolResult:
        out_dir = output_directory(ctx)
        import tempfile  # start-up: loads with the first command

        fd, raw_path = tempfile.mkstemp(prefix="output-", suffix=".log", dir=out_dir)
        output_path = Path(raw_path)
        cwd_file = output_path.with_suffix(".cwd")
        # The output is read back through ``fd``, the descriptor mkstemp made: whatever the
        # command puts at ``output_path`` by name later (a symlink, a FIFO), the host reads
        # only what the command wrote to its stdout.
        try:
            with os.fdopen(os.dup(fd), "wb") as output:
                process = await spawn_shell(
                    command, ctx.state.cwd, output, cwd_file=cwd_file, wrapper=wrapper
                )
            finished = await _run_to_end(process, fd, timeout_ms / 1000, self.max_output_file_bytes)
            return self._result(finished, fd, output_path, cwd_file, timeout_ms, ctx)
        except OSError as exc:
            _unlink_quietly(output_path)
            return ToolResult.error(f"could not run the command: {exc}")
        finally:
            os.close(fd)
            _unlink_quietly(cwd_file)

    def _result(
        self,
        finished: _Finished,
        output_fd: int,
        output_path: Path,
        cwd_file: Path,
        timeout_ms: int,
        ctx: ToolContext,
    ) -> ToolResult:
        raw = read_at(output_fd, MAX_READBACK_BYTES)
        text, keep_file = render_output(raw, output_path)
        if not keep_file:
            _unlink_quietly(output_path)
        elif not still_named(output_fd, output_path):
            # The command replaced the file by name: the saved copy must be ours again.
            _unlink_quietly(output_path)
            text, _ = render_output(raw, _save_copy(output_fd, output_path.parent))
        if finished.stopped == "timed_out":
            note = (
                f"\nCommand timed out after {timeout_ms} ms; it and its child processes "
                "were killed. Pass a larger timeout (in ms), or set run_in_background for "
                "long runs."
            )
            return ToolResult(text + note, is_error=True)
        if finished.stopped == "output_too_large":
            note = (
                f"\nCommand killed: its output passed {self.max_output_file_bytes} bytes. "
                "Redirect it to a file and read parts of it, or filter it (| head, | grep)."
            )
            return ToolResult(text + note, is_error=True)
        new_cwd, cwd_note = _next_cwd(cwd_file, ctx)
        ctx.state.cwd = new_cwd
        exit_code = finished.exit_code
        if exit_code == 0:
            return ToolResult((text or "(no output)") + cwd_note)
        return ToolResult(f"{text}\nExit code {exit_code}{cwd_note}", is_error=True)


def _unlink_quietly(path: Path) -> None:
    """Remove a name in the output dir, whatever the command left there (even a directory)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


def _save_copy(source_fd: int, directory: Path) -> Path:
    """A fresh file in ``directory`` holding what ``source_fd`` holds."""
    import tempfile  # start-up: loads with the first command

    fd, raw_path = tempfile.mkstemp(prefix="output-", suffix=".log", dir=directory)
    with os.fdopen(fd, "wb") as target:
        offset = 0
        while chunk := read_at(source_fd, 1024 * 1024, offset):
            target.write(chunk)
            offset += len(chunk)
    return Path(raw_path)
