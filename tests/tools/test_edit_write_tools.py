"""Edit and Write: read-before-change, staleness, uniqueness, creation."""

from __future__ import annotations

import os
from pathlib import Path

from error_advice import assert_says_what_to_do
from loopwright.tools.base import ToolContext
from loopwright.tools.edit import EditTool
from loopwright.tools.read import ReadTool
from loopwright.tools.write import WriteTool


async def read(ctx: ToolContext, path: Path) -> None:
    result = await ReadTool().call({"file_path": str(path)}, ctx)
    assert not result.is_error


async def edit(ctx: ToolContext, path: Path, old: str, new: str, **extra: object):
    input: dict[str, object] = {"file_path": str(path), "old_string": old, "new_string": new}
    return await EditTool().call(input | extra, ctx)


async def test_edit_replaces_a_unique_string(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("def add(a, b):\n    return a - b\n")
    await read(ctx, target)
    result = await edit(ctx, target, "a - b", "a + b")
    assert not result.is_error, result.content
    assert target.read_text() == "def add(a, b):\n    return a + b\n"
    assert "return a + b" in str(result.content)


async def test_edit_without_prior_read_is_refused(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("x = 1\n")
    result = await edit(ctx, target, "x = 1", "x = 2")
    assert result.is_error and "Read it" in str(result.content)
    assert target.read_text() == "x = 1\n"


async def test_edit_refuses_a_file_changed_since_read(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("x = 1\n")
    await read(ctx, target)
    target.write_text("x = 1\ny = 2\n")
    result = await edit(ctx, target, "x = 1", "x = 3")
    assert result.is_error and "changed on disk" in str(result.content)
    assert_says_what_to_do(result.content, "Read it again before you edit it")


async def test_ambiguous_match_says_how_many(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("a\na\na\n")
    await read(ctx, target)
    result = await edit(ctx, target, "a", "b")
    assert result.is_error and "3 times" in str(result.content)
    assert_says_what_to_do(result.content, "include more surrounding context", "set replace_all")
    result = await edit(ctx, target, "a", "b", replace_all=True)
    assert not result.is_error
    assert target.read_text() == "b\nb\nb\n"


async def test_consecutive_edits_work_without_rereading(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("one\ntwo\n")
    await read(ctx, target)
    assert not (await edit(ctx, target, "one", "uno")).is_error
    assert not (await edit(ctx, target, "two", "dos")).is_error
    assert target.read_text() == "uno\ndos\n"


async def test_edit_error_cases(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "code.py"
    target.write_text("x = 1\n")
    await read(ctx, target)
    same = await edit(ctx, target, "x = 1", "x = 1")
    assert same.is_error
    assert_says_what_to_do(same.content, "put the new text in new_string")
    absent = await edit(ctx, target, "absent", "y")
    assert absent.is_error
    assert_says_what_to_do(absent.content, "Read the file again and copy the text")
    relative = await edit(ctx, Path("relative.py"), "a", "b")
    assert relative.is_error
    assert_says_what_to_do(relative.content, "file_path must be an absolute path")
    missing = await edit(ctx, tmp_path / "missing.py", "a", "b")
    assert missing.is_error
    assert_says_what_to_do(missing.content, "pass an empty old_string to create the file")
    bad = await EditTool().call({"file_path": str(target), "old_string": 1, "new_string": 2}, ctx)
    assert bad.is_error
    assert_says_what_to_do(bad.content, "must both be strings")


async def test_edit_with_empty_old_string_creates_a_file(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "new" / "file.txt"
    result = await edit(ctx, target, "", "hello\n")
    assert not result.is_error
    assert target.read_text() == "hello\n"


async def test_write_creates_parents_and_reports_size(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.txt"
    result = await WriteTool().call({"file_path": str(target), "content": "hi\nthere\n"}, ctx)
    assert not result.is_error
    assert "9 bytes" in str(result.content) and "2 lines" in str(result.content)
    assert target.read_text() == "hi\nthere\n"


async def test_overwrite_needs_a_fresh_read(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "c.txt"
    target.write_text("old")
    blind = await WriteTool().call({"file_path": str(target), "content": "new"}, ctx)
    assert blind.is_error and target.read_text() == "old"
    assert_says_what_to_do(blind.content, "Read it before you overwrite it")
    await read(ctx, target)
    stat = target.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    stale = await WriteTool().call({"file_path": str(target), "content": "new"}, ctx)
    assert stale.is_error and "changed on disk" in str(stale.content)
    await read(ctx, target)
    fresh = await WriteTool().call({"file_path": str(target), "content": "new"}, ctx)
    assert not fresh.is_error and target.read_text() == "new"


async def test_write_error_cases(ctx: ToolContext, tmp_path: Path) -> None:
    relative = await WriteTool().call({"file_path": "rel.txt", "content": "x"}, ctx)
    assert relative.is_error
    assert_says_what_to_do(relative.content, "file_path must be an absolute path")
    directory = await WriteTool().call({"file_path": str(tmp_path), "content": "x"}, ctx)
    assert directory.is_error
    assert_says_what_to_do(directory.content, "pass the path of a file")
    missing = await WriteTool().call({"file_path": str(tmp_path / "x.txt")}, ctx)
    assert missing.is_error
    assert_says_what_to_do(missing.content, "content must be a string")


async def test_edit_keeps_crlf_line_endings(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await read(ctx, target)
    result = await edit(ctx, target, "one\ntwo", "uno\ndos")
    assert not result.is_error, result.content
    assert target.read_bytes() == b"uno\r\ndos\r\nthree\r\n"
