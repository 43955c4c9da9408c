"""Background shells: Bash(run_in_background=true), BashOutput and KillShell.

The registry lives in ``SessionState.resources["background_shells"]``; the loop awaits its
``aclose()`` when the session ends, which kills every process group still running.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loopwright.tools.base import SessionState, ToolBase, ToolContext, ToolResult
from loopwright.tools.bash_process import kill_process_group, spawn_shell
from loopwright.tools.command_wrapper import ProtectedPathsWatch, watch_protected_paths
from loopwright.tools.untrusted_files import read_at

RESOURCE_KEY = "background_shells"
# Each BashOutput call returns at most this much new output; the rest waits for the next call.
MAX_CHUNK_BYTES = 30_000

ShellStatus = Literal["running", "completed", "failed", "killed"]


@dataclass(slots=True)
class BackgroundShell:
    """One background command: its process, output file and how much of it was read.

    The output is read through ``output_fd``, the descriptor the host created the file
    with, never by name: the command may replace the name with a symlink or a FIFO."""

    shell_id: str
    command: str
    process: asyncio.subprocess.Process
    output_path: Path
    output_fd: int
    waiter: asyncio.Task[int]
    read_offset: int = 0
    killed: bool = False
    # What the sandbox did about protected paths when the command ended (quarantine).
    protected_notes: list[str] = field(default_factory=list[str])
    protected_reported: bool = False
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    @property
    def status(self) -> ShellStatus:
        if self.killed:
            return "killed"
        code = self.process.returncode
        if code is None:
            return "running"
        return "completed" if code == 0 else "failed"

    def read_new_output(self) -> str:
        chunk = read_at(self.output_fd, MAX_CHUNK_BYTES, self.read_offset)
        self.read_offset += len(chunk)
        return self.decoder.decode(chunk)

    def has_unread_output(self) -> bool:
        return os.fstat(self.output_fd).st_size > self.read_offset

    def unreported_protected_note(self) -> str:
        """The quarantine note once, after the command ended ('' before or after that)."""
        if self.protected_reported or not self.waiter.done():
            return ""
        self.protected_reported = True
        return "".join(self.protected_notes)


class BackgroundShells:
    """The session's background shells; ``aclose`` ends them all."""

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._counter = 0

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self._shells.get(shell_id)

    def ids(self) -> list[str]:
        return list(self._shells)

    async def start(self, command: str, cwd: Path, output_dir: Path, wrapper: Any | None) -> str:
        self._counter += 1
        shell_id = f"bash_{self._counter}"
        import tempfile  # start-up: loads with the first command

        fd, raw_path = tempfile.mkstemp(prefix=f"{shell_id}-", suffix=".log", dir=output_dir)
        output_path = Path(raw_path)
        watch = watch_protected_paths(wrapper)
        try:
            with os.fdopen(os.dup(fd), "wb") as output:
                process = await spawn_shell(command, cwd, output, cwd_file=None, wrapper=wrapper)
        except BaseException:
            os.close(fd)
            raise
        notes: list[str] = []
        # A task per shell reaps the process as soon as it exits (no zombies while we wait),
        # then lets the sandbox move away protected paths the command created.
        waiter = asyncio.create_task(_reap(process, watch, notes), name=f"loopwright-{shell_id}")
        self._shells[shell_id] = BackgroundShell(
            shell_id, command, process, output_path, fd, waiter, protected_notes=notes
        )
        return shell_id

    async def kill(self, shell_id: str) -> BackgroundShell | None:
        shell = self._shells.get(shell_id)
        if shell is None:
            return None
        if shell.process.returncode is None:
            shell.killed = True
        await kill_process_group(shell.process)
        await shell.waiter
        return shell

    async def aclose(self) -> None:
        """Kill every background process group and reap every leader."""
        await asyncio.gather(
            *(self.kill(shell_id) for shell_id in self._shells), return_exceptions=True
        )
        for shell in self._shells.values():
            if shell.output_fd >= 0:
                os.close(shell.output_fd)
                shell.output_fd = -1


async def _reap(
    process: asyncio.subprocess.Process, watch: ProtectedPathsWatch | None, notes: list[str]
) -> int:
    try:
        return await process.wait()
    finally:
        if watch is not None:
            notes.append(watch.settle())


def background_shells(state: SessionState) -> BackgroundShells:
    existing = state.resources.get(RESOURCE_KEY)
    if isinstance(existing, BackgroundShells):
        return existing
    created = BackgroundShells()
    state.resources[RESOURCE_KEY] = created
    return created


def _unknown_shell(shell_id: object, state: SessionState) -> ToolResult:
    known = ", ".join(background_shells(state).ids()) or "none"
    return ToolResult.error(f"no background shell {shell_id!r}; running shells: {known}")


async def _filtered(text: str, pattern: str | None, cwd: Path) -> str | ToolResult:
    """The lines matching ``pattern``. ripgrep runs it (linear-time regex, in another
    process): a model-written pattern like ``(a+)+$`` must not stall the event loop."""
    if pattern is None:
        return text
    args = ["--no-config", "--color=never", "--text", "--no-line-number", "-e", pattern, "-"]
    from loopwright.tools.ripgrep import run_rg  # start-up: loads with the first filter

    try:
        output = await run_rg(args, cwd, stdin=text.encode("utf-8", errors="surrogateescape"))
    except FileNotFoundError as exc:
        return ToolResult.error(str(exc))
    except TimeoutError:
        return ToolResult.error("filtering the output timed out; use a simpler filter")
    if output.exit_code == 2:
        problem = output.stderr.strip() or "rg rejected it"
        return ToolResult.error(
            f"filter is not a valid regular expression: {problem}; escape ( [ {{ . * + ? "
            "with a backslash to match them literally"
        )
    return output.stdout.decode("utf-8", errors="replace")


def _status_line(shell: BackgroundShell) -> str:
    code = shell.process.returncode
    exit_part = "" if code is None or shell.killed else f", exit code {code}"
    return f"[shell {shell.shell_id}: {shell.status}{exit_part}]"


BASH_OUTPUT_DESCRIPTION = """\
Read the new output of a background shell started with Bash(run_in_background=true).

- Returns only output produced since the previous BashOutput call, plus the shell's \
status (running, completed, failed, killed) and exit code.
- filter is an optional regular expression: only matching lines are returned; the lines \
it drops are consumed and will not be returned later."""


@dataclass(frozen=True, slots=True)
class BashOutputTool(ToolBase):
    name: str = "BashOutput"
    description: str = BASH_OUTPUT_DESCRIPTION
    input_schema: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "bash_id": {"type": "string", "description": "The id Bash returned."},
                "filter": {"type": "string", "description": "Regex; keep matching lines only."},
            },
            "required": ["bash_id"],
            "additionalProperties": False,
        }
    )
    read_only: bool = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        shell_id = input.get("bash_id")
        shell = background_shells(ctx.state).get(str(shell_id))
        if shell is None:
            return _unknown_shell(shell_id, ctx.state)
        raw_filter = input.get("filter")
        pattern = None if raw_filter is None else str(raw_filter)
        if pattern is not None and ("\x00" in pattern or not pattern):
            return ToolResult.error("filter must be a non-empty regular expression")
        text = await _filtered(await asyncio.to_thread(shell.read_new_output), pattern, ctx.cwd)
        if isinstance(text, ToolResult):
            return text
        if shell.process.returncode is not None:
            await asyncio.shield(shell.waiter)  # its protected-path check ends with it
        more = await asyncio.to_thread(shell.has_unread_output)
        note = "\n[more output is waiting; call BashOutput again]" if more else ""
        protected = "" if more else shell.unreported_protected_note()
        return ToolResult(f"{_status_line(shell)}\n{text or '(no new output)'}{note}{protected}")


@dataclass(frozen=True, slots=True)
class KillShellTool(ToolBase):
    name: str = "KillShell"
    description: str = (
        "Stop a background shell started with Bash(run_in_background=true), killing the "
        "command and every process it started."
    )
    input_schema: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "shell_id": {"type": "string", "description": "The id Bash returned."},
            },
            "required": ["shell_id"],
            "additionalProperties": False,
        }
    )
    read_only: bool = False

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        shell_id = input.get("shell_id")
        shells = background_shells(ctx.state)
        shell = shells.get(str(shell_id))
        if shell is None:
            return _unknown_shell(shell_id, ctx.state)
        already_done = shell.process.returncode is not None
        await shells.kill(str(shell_id))
        protected = shell.unreported_protected_note()
        if already_done:
            return ToolResult(
                f"Shell {shell_id} had already finished. {_status_line(shell)}{protected}"
            )
        return ToolResult(f"Killed shell {shell_id}. {_status_line(shell)}{protected}")
