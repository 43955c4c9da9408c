"""File checkpoints: the files tools change are snapshotted per user message and can be
rewound.

With ``Options(enable_file_checkpointing=True)`` each prompt opens a checkpoint named by
the prompt's uuid; once the permission check has let a file-editing tool (Write, Edit,
NotebookEdit) run — never before, so a denied call reads nothing — the file's content is
kept the first time it is touched under that checkpoint (or the fact that it did not
exist). The snapshot is size-checked before it is read and opened like untrusted input
(no FIFO, no symlink followed); a path that cannot be checkpointed makes the call an
error result, not the end of the run. ``Client.rewind_files(user_message_uuid)`` puts
every file changed at or after that prompt back as it was just before it. Changes made by
shell commands are not tracked.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.errors import LoopwrightError
from loopwright.tools.base import Tool, ToolContext, ToolResult, ToolWrapper
from loopwright.tools.file_access import ChangeRefused, write_new_or_existing
from loopwright.tools.untrusted_files import NotARegularFile, open_regular, read_at

EDITING_TOOLS = {"Write": "file_path", "Edit": "file_path", "NotebookEdit": "notebook_path"}
# The editing tools refuse bigger files (edit.py); a snapshot never loads more than this.
MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024


@dataclass
class FileCheckpoints:
    """Per prompt (by uuid, oldest first): each touched path and its earlier content."""

    snapshots: dict[str, dict[Path, bytes | None]] = field(
        default_factory=dict[str, dict[Path, "bytes | None"]]
    )

    def begin(self, message_uuid: str) -> None:
        self.snapshots.setdefault(message_uuid, {})

    def before_tool(self, name: str, input: dict[str, Any], cwd: Path) -> str | None:
        """Keep what ``name`` is about to change, if it is a file-editing tool; a message
        saying why it cannot be kept (the call must not run), or None."""
        key = EDITING_TOOLS.get(name)
        raw = input.get(key) if key is not None else None
        if not isinstance(raw, str) or not raw or not self.snapshots:
            return None
        try:
            path = Path(os.path.realpath(os.path.join(cwd, os.path.expanduser(raw))))
            current = self.snapshots[next(reversed(self.snapshots))]
            if path not in current:
                current[path] = _snapshot(path)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return (
                f"{raw!r} cannot be checkpointed before {name} changes it ({reason}); "
                "check the path, or turn off enable_file_checkpointing"
            )
        return None

    def rewind(self, message_uuid: str) -> list[Path]:
        """Restore every file changed at or after ``message_uuid``; the paths restored."""
        if message_uuid not in self.snapshots:
            known = ", ".join(self.snapshots) or "none yet"
            raise LoopwrightError(
                f"no file checkpoint for user message {message_uuid!r} (checkpoints: {known}); "
                "pass the uuid of a UserMessage prompt of this session, with "
                "enable_file_checkpointing=True"
            )
        order = list(self.snapshots)
        later = order[order.index(message_uuid) :]
        earliest: dict[Path, bytes | None] = {}
        for uuid in reversed(later):  # the oldest snapshot of each path wins
            earliest.update(self.snapshots[uuid])
        for path, content in earliest.items():
            if content is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_symlink():  # planted since: restore the file, not its target
                    path.unlink()
                try:
                    write_new_or_existing(path, content)
                except ChangeRefused as exc:
                    raise LoopwrightError(f"cannot restore {path}: {exc}") from None
        for uuid in later:
            self.snapshots[uuid] = {}
        return sorted(earliest)


def _snapshot(path: Path) -> bytes | None:
    """The file's content, or None where there is no regular file to keep (missing, a
    link or a FIFO: the editing tools refuse those and change nothing)."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    except NotARegularFile:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > MAX_SNAPSHOT_BYTES:
            raise OSError(errno.EFBIG, f"it is {size} bytes, over {MAX_SNAPSHOT_BYTES}")
        return read_at(fd, MAX_SNAPSHOT_BYTES + 1)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class CheckpointedTool(ToolWrapper):
    """An editing tool that snapshots its target when it is called — that is, after the
    permission gate allowed it, with the input the gate (hooks included) passed on."""

    inner: Tool
    checkpoints: FileCheckpoints

    @property
    def wrapped(self) -> Tool:
        return self.inner

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        problem = await asyncio.to_thread(
            self.checkpoints.before_tool, self.inner.name, input, ctx.cwd
        )
        if problem is not None:
            return ToolResult.error(problem)
        return await self.inner.call(input, ctx)


def checkpointed(
    tools: Mapping[str, Tool], checkpoints: FileCheckpoints | None
) -> Mapping[str, Tool]:
    """``tools`` with every file-editing tool snapshotting its target as it runs."""
    if checkpoints is None:
        return tools
    return {
        name: CheckpointedTool(tool, checkpoints) if name in EDITING_TOOLS else tool
        for name, tool in tools.items()
    }
