"""The Read tool: text files with line numbers, images, notebooks and PDFs.

Also home of the path checks every file tool shares (absolute path, no NUL byte), so the
file tools agree on what a valid ``file_path`` is.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.file_access import absolute_path
from loopwright.tools.read_formats import render_notebook, render_pdf
from loopwright.tools.untrusted_files import NotARegularFile, open_regular, read_at

DEFAULT_LINE_LIMIT = 2000
MAX_LINE_CHARS = 2000
LONG_LINE_CHUNK = 1024 * 1024
# A whole-file read stops here even under the line limit, so one call cannot flood the context.
MAX_OUTPUT_CHARS = 250_000
BINARY_SNIFF_BYTES = 8192
# Past this size Read refuses by stat, before reading: Grep or a shell range instead.
MAX_READ_FILE_BYTES = 256 * 1024 * 1024

READ_DESCRIPTION = """\
Read a file from the local filesystem.

- file_path must be an absolute path.
- By default up to 2000 lines are returned from the start of the file; pass offset (1-based \
line number) and limit to read a specific range of a long file.
- Each line is returned as `<line number><TAB><text>`; lines longer than 2000 characters are cut.
- Images (png, jpg, gif, webp) are returned as images you can see.
- Jupyter notebooks (.ipynb) are rendered cell by cell with their outputs.
- PDFs are returned as text per page; pass pages (e.g. "1-5") for long documents.
- Binary files and directories are refused; list directories with Bash (ls) or Glob.
- Reading a file is required before editing or overwriting it with Edit or Write."""

READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Absolute path of the file to read."},
        "offset": {
            "type": "integer",
            "minimum": 1,
            "description": "1-based line number to start from (for long files).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "How many lines to read (default 2000).",
        },
        "pages": {
            "type": "string",
            "description": 'PDF only: page range such as "3" or "1-5" (at most 20 pages).',
        },
    },
    "required": ["file_path"],
    "additionalProperties": False,
}


def positive_int(raw: object, field_name: str, default: int | None) -> int | str | None:
    """An optional positive integer argument, or a message saying why it is not one."""
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        return f"{field_name} must be a positive integer, got {raw!r}"
    return raw


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first block mark a file as binary (what git and grep also use)."""
    return b"\x00" in head


@dataclass(frozen=True, slots=True)
class TextSlice:
    text: str
    first_line: int
    lines_shown: int
    total_lines: int
    cut_short: bool


def _bounded_lines(handle: TextIO) -> Iterator[str]:
    """The file's lines, each at most MAX_LINE_CHARS + 1 characters long.

    A minified bundle can be one 100 MB line; reading it whole would load it all into
    memory only to cut it, so the rest of an over-long line is skipped in chunks.
    """
    while line := handle.readline(MAX_LINE_CHARS + 1):
        if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
            while (rest := handle.readline(LONG_LINE_CHUNK)) and not rest.endswith("\n"):
                pass
        yield line


def _read_text_slice(fd: int, offset: int, limit: int) -> TextSlice:
    numbered: list[str] = []
    chars = 0
    total = 0
    cut_short = False
    with open(fd, encoding="utf-8", errors="replace", newline=None, closefd=False) as handle:
        for total, line in enumerate(_bounded_lines(handle), start=1):
            if total < offset or cut_short:
                continue
            if len(numbered) >= limit:
                cut_short = True
                continue
            text = line.rstrip("\n")
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + " … [line cut]"
            entry = f"{total:>6}\t{text}"
            chars += len(entry) + 1
            if chars > MAX_OUTPUT_CHARS and numbered:
                cut_short = True
                continue
            numbered.append(entry)
    return TextSlice("\n".join(numbered), offset, len(numbered), total, cut_short)


def _render_text(
    fd: int, path: Path, offset: int, limit: int, explicit_range: bool
) -> tuple[str, bool]:
    """The numbered text and whether the view was cut short without being asked to."""
    sliced = _read_text_slice(fd, offset, limit)
    if sliced.total_lines == 0:
        return (f"<file {path} exists but is empty>", False)
    if sliced.lines_shown == 0:
        return (
            f"<offset {offset} is past the end of {path}, which has {sliced.total_lines} lines>",
            False,
        )
    if not sliced.cut_short:
        return (sliced.text, False)
    last = sliced.first_line + sliced.lines_shown - 1
    note = (
        f"\n\n<PARTIAL view: lines {sliced.first_line}-{last} of {sliced.total_lines}. "
        f"Call Read again with offset={last + 1} to continue.>"
    )
    return (sliced.text + note, not explicit_range)


def _read_sync(path: Path, input: dict[str, Any]) -> tuple[ToolResult, bool | None]:
    """The result and, on success, whether the session saw only part of the file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        missing = f"file does not exist: {path}; check the path, or find the file with Glob"
        return (ToolResult.error(missing), None)
    if stat.S_ISDIR(info.st_mode):
        return (
            ToolResult.error(f"{path} is a directory; list it with Bash (ls) or Glob instead"),
            None,
        )
    if not stat.S_ISREG(info.st_mode):
        return (_not_regular(path), None)
    if info.st_size > MAX_READ_FILE_BYTES:
        # Checked by size before a byte is read: a sparse 3 GB file costs nothing to make.
        return (
            ToolResult.error(
                f"{path} is {info.st_size} bytes, over Read's limit of {MAX_READ_FILE_BYTES}; "
                "search it with Grep, or show a part with Bash (sed -n '100,200p', tail)"
            ),
            None,
        )
    try:
        # O_NONBLOCK + fstat: a FIFO swapped in after the stat cannot block the read.
        fd = open_regular(path, follow_symlinks=True)
    except NotARegularFile:
        return (_not_regular(path), None)
    try:
        return _read_open_file(fd, path, input)
    finally:
        os.close(fd)


def _not_regular(path: Path) -> ToolResult:
    # A FIFO or a terminal would block the read forever; a device never ends.
    return ToolResult.error(
        f"{path} is not a regular file (a pipe, socket or device); Read only opens regular files"
    )


def _read_open_file(fd: int, path: Path, input: dict[str, Any]) -> tuple[ToolResult, bool | None]:
    # start-up: the image code loads with the first read
    from loopwright.tools.read_image import (
        IMAGE_SUFFIXES,
        image_result,
        mislabelled_image,
        sniff_image,
    )

    suffix = path.suffix.lower()
    media_type = sniff_image(read_at(fd, 16), suffix)
    if media_type is not None or suffix in IMAGE_SUFFIXES:
        # Typed by content, not by name: a .png that is really a JPEG is sent as one.
        result = image_result(path, media_type) if media_type else mislabelled_image(path)
        return (result, None if result.is_error else False)
    if suffix == ".ipynb":
        rendered = render_notebook(path)
        return (rendered, None if rendered.is_error else False)
    if suffix == ".pdf":
        rendered = render_pdf(path, input.get("pages"))
        return (rendered, None if rendered.is_error else input.get("pages") is not None)
    if looks_binary(read_at(fd, BINARY_SNIFF_BYTES)):
        return (
            ToolResult.error(
                f"{path} looks like a binary file; Read only shows text, images, "
                "notebooks and PDFs. Inspect it with Bash (e.g. `xxd | head`) if needed."
            ),
            None,
        )
    offset = positive_int(input.get("offset"), "offset", 1)
    limit = positive_int(input.get("limit"), "limit", DEFAULT_LINE_LIMIT)
    for checked in (offset, limit):
        if isinstance(checked, str):
            return (ToolResult.error(checked), None)
    assert isinstance(offset, int) and isinstance(limit, int)
    explicit = input.get("offset") is not None or input.get("limit") is not None
    text, partial = _render_text(fd, path, offset, limit, explicit)
    return (ToolResult(text), partial)


@dataclass(frozen=True, slots=True)
class ReadTool(ToolBase):
    """Reads text, image, notebook and PDF files and records them as read."""

    name: str = "Read"
    description: str = READ_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: READ_SCHEMA)
    read_only: bool = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = absolute_path(input.get("file_path"))
        if isinstance(path, str):
            return ToolResult.error(path)
        try:
            result, partial = await asyncio.to_thread(_read_sync, path, input)
        except OSError as exc:
            return ToolResult.error(f"cannot read {path}: {exc.strerror or exc}")
        if partial is not None:
            try:
                ctx.state.record_read(path, partial=partial)
                # Write and Edit refuse a link: the file it reaches counts as read too.
                real = Path(os.path.realpath(path))
                if real != path:
                    ctx.state.record_read(real, partial=partial)
            except OSError:
                pass  # deleted between the read and the stat: Edit will ask for a re-read
        return result
