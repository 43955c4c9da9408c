"""The Write tool: create a file, or overwrite one the session has read."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.tools.base import SessionState, ToolBase, ToolContext, ToolResult
from loopwright.tools.file_access import (
    ChangeRefused,
    absolute_path,
    link_refusal,
    stale_read_problem,
    write_new_or_existing,
)

WRITE_DESCRIPTION = """\
Write a file to the local filesystem, replacing it if it exists.

- file_path must be an absolute path; missing parent directories are created.
- Overwriting an existing file requires reading it first in this session (and it must not \
have changed on disk since). Prefer Edit for changing part of an existing file.
- content is written exactly as given (UTF-8)."""

WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Absolute path of the file to write."},
        "content": {"type": "string", "description": "The complete new file content."},
    },
    "required": ["file_path", "content"],
    "additionalProperties": False,
}


def _line_count(content: str) -> int:
    if not content:
        return 0
    return content.count("\n") + (0 if content.endswith("\n") else 1)


def _write_sync(path: Path, content: str, state: SessionState) -> ToolResult:
    existed = os.path.lexists(path)
    if existed:
        if path.is_symlink():
            return ToolResult.error(link_refusal(path))
        if path.is_dir():
            return ToolResult.error(f"{path} is a directory, not a file; pass the path of a file")
        problem = stale_read_problem(path, state, "overwrite")
        if problem:
            return ToolResult.error(problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    try:
        write_new_or_existing(path, data)
    except ChangeRefused as exc:
        return ToolResult.error(str(exc))
    state.record_read(path)
    verb = "Overwrote" if existed else "Created"
    return ToolResult(f"{verb} {path}: {len(data)} bytes, {_line_count(content)} lines")


@dataclass(frozen=True, slots=True)
class WriteTool(ToolBase):
    """Writes whole files; refuses blind overwrites."""

    name: str = "Write"
    description: str = WRITE_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: WRITE_SCHEMA)
    read_only: bool = False

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = absolute_path(input.get("file_path"))
        if isinstance(path, str):
            return ToolResult.error(path)
        content = input.get("content")
        if not isinstance(content, str):
            return ToolResult.error("content must be a string")
        try:
            return await asyncio.to_thread(_write_sync, path, content, ctx.state)
        except OSError as exc:
            return ToolResult.error(f"cannot write {path}: {exc.strerror or exc}")
