"""The Edit tool: exact string replacement in a file the session has read."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.tools.base import SessionState, ToolBase, ToolContext, ToolResult
from loopwright.tools.file_access import (
    MAX_EDIT_FILE_BYTES,
    ChangeRefused,
    absolute_path,
    link_refusal,
    open_for_change,
    replace_content,
    stale_read_problem,
    write_new_or_existing,
)
from loopwright.tools.untrusted_files import read_at

SNIPPET_CONTEXT_LINES = 3

EDIT_DESCRIPTION = """\
Replace exact text in a file.

- Read the file first in this session; editing a file you have not read, or one that \
changed on disk since you read it, is refused (Read it again).
- old_string must match the file exactly, including whitespace and indentation. Do not \
include the line-number prefix that Read shows.
- old_string must occur exactly once; add surrounding lines to make it unique, or set \
replace_all to replace every occurrence (useful for renames).
- With an empty old_string on a path that does not exist, the file is created with new_string."""

EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Absolute path of the file to edit."},
        "old_string": {"type": "string", "description": "The exact text to replace."},
        "new_string": {"type": "string", "description": "The text to put in its place."},
        "replace_all": {
            "type": "boolean",
            "default": False,
            "description": "Replace every occurrence instead of requiring exactly one.",
        },
    },
    "required": ["file_path", "old_string", "new_string"],
    "additionalProperties": False,
}


def _snippet(text: str, start: int, length: int) -> str:
    """Numbered lines around the replaced region, so the model can check the result."""
    lines = text.split("\n")
    first_line = text.count("\n", 0, start)
    last_line = text.count("\n", 0, start + length)
    low = max(0, first_line - SNIPPET_CONTEXT_LINES)
    high = min(len(lines), last_line + SNIPPET_CONTEXT_LINES + 1)
    return "\n".join(f"{n + 1:>6}\t{lines[n]}" for n in range(low, high))


def _create(path: Path, content: str, state: SessionState, fd: int | None = None) -> ToolResult:
    if fd is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new_or_existing(path, content.encode("utf-8"), exclusive=True)
    else:
        replace_content(fd, content.encode("utf-8"))
    state.record_read(path)
    return ToolResult(f"Created {path} ({content.count(chr(10)) + 1} lines)")


def _edit_sync(
    path: Path, old: str, new: str, replace_all: bool, state: SessionState
) -> ToolResult:
    if not os.path.lexists(path):
        if old == "":
            return _create(path, new, state)
        return ToolResult.error(
            f"file does not exist: {path}; check the path, or pass an empty old_string "
            "to create the file"
        )
    if path.is_symlink():
        return ToolResult.error(link_refusal(path))
    if path.is_dir():
        return ToolResult.error(f"{path} is a directory, not a file; pass the path of a file")
    problem = stale_read_problem(path, state, "edit")
    if problem:
        return ToolResult.error(problem)
    # One descriptor for the size check, the read and the write: the file changed is
    # the file that was checked.
    fd = open_for_change(path, os.O_RDWR)
    try:
        return _edit_open_file(fd, path, old, new, replace_all, state)
    finally:
        os.close(fd)


def _edit_open_file(
    fd: int, path: Path, old: str, new: str, replace_all: bool, state: SessionState
) -> ToolResult:
    size = os.fstat(fd).st_size
    if size > MAX_EDIT_FILE_BYTES:
        return ToolResult.error(
            f"{path} is {size} bytes, over Edit's limit of {MAX_EDIT_FILE_BYTES}; change it "
            "with a command that streams it (sed -i, a script) instead"
        )
    try:
        text = read_at(fd, size).decode("utf-8")
    except UnicodeDecodeError:
        return ToolResult.error(f"{path} is not UTF-8 text; Edit only changes text files")
    if "\r\n" in text and "\r\n" not in old and "\n" in old:
        # Read shows CRLF files with plain newlines; edit them in the file's own line endings.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    if old == "":
        if text:
            return ToolResult.error(
                "old_string is empty but the file is not; give the exact text to replace"
            )
        return _create(path, new, state, fd)
    occurrences = text.count(old)
    if occurrences == 0:
        return ToolResult.error(
            f"old_string was not found in {path}; it must match exactly (whitespace and "
            "indentation included). Read the file again and copy the text."
        )
    if occurrences > 1 and not replace_all:
        return ToolResult.error(
            f"old_string occurs {occurrences} times in {path}; include more surrounding "
            "context to make it unique, or set replace_all to replace every occurrence"
        )
    first = text.index(old)
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    replace_content(fd, updated.encode("utf-8"))
    state.record_read(path)
    replaced = f"{occurrences} occurrences" if replace_all else "1 occurrence"
    return ToolResult(f"Edited {path}: replaced {replaced}.\n{_snippet(updated, first, len(new))}")


@dataclass(frozen=True, slots=True)
class EditTool(ToolBase):
    """Exact, unique string replacement guarded by read-before-edit."""

    name: str = "Edit"
    description: str = EDIT_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: EDIT_SCHEMA)
    read_only: bool = False

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = absolute_path(input.get("file_path"))
        if isinstance(path, str):
            return ToolResult.error(path)
        old, new = input.get("old_string"), input.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return ToolResult.error("old_string and new_string must both be strings")
        if old == new:
            return ToolResult.error(
                "old_string and new_string are identical; nothing to change "
                "(put the new text in new_string)"
            )
        replace_all = input.get("replace_all", False)
        if not isinstance(replace_all, bool):
            return ToolResult.error(f"replace_all must be true or false, got {replace_all!r}")
        try:
            return await asyncio.to_thread(_edit_sync, path, old, new, replace_all, ctx.state)
        except ChangeRefused as exc:
            return ToolResult.error(str(exc))
        except OSError as exc:
            return ToolResult.error(f"cannot edit {path}: {exc.strerror or exc}")
