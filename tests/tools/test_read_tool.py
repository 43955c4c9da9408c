"""Read: numbering, ranges, long lines, empty files, images, notebooks, refusals."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path

from error_advice import assert_says_what_to_do
from loopwright.messages import ImageBlock
from loopwright.tools.base import ToolContext
from loopwright.tools.read import ReadTool

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


async def read(ctx: ToolContext, **input: object):
    return await ReadTool().call(dict(input), ctx)


async def test_lines_are_numbered_with_a_tab(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("alpha\nbeta\n")
    result = await read(ctx, file_path=str(target))
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\tbeta"
    assert str(target) in ctx.state.read_files
    assert not ctx.state.read_files[str(target)].partial


async def test_offset_and_limit_select_a_range(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "many.txt"
    target.write_text("".join(f"line {n}\n" for n in range(1, 101)))
    result = await read(ctx, file_path=str(target), offset=10, limit=3)
    assert isinstance(result.content, str)
    assert result.content.startswith("    10\tline 10\n    11\tline 11\n    12\tline 12")
    assert "PARTIAL view" in result.content
    assert "offset=13" in result.content


async def test_default_limit_is_2000_lines_and_marks_partial(
    ctx: ToolContext, tmp_path: Path
) -> None:
    target = tmp_path / "long.txt"
    target.write_text("x\n" * 2500)
    result = await read(ctx, file_path=str(target))
    assert isinstance(result.content, str)
    assert "  2000\tx" in result.content and "  2001\t" not in result.content
    assert "of 2500" in result.content
    assert ctx.state.read_files[str(target)].partial


async def test_long_lines_are_cut(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "wide.txt"
    target.write_text("y" * 5000 + "\n")
    result = await read(ctx, file_path=str(target))
    assert isinstance(result.content, str)
    assert "y" * 2000 + " … [line cut]" in result.content
    assert "y" * 2001 not in result.content


async def test_empty_file_gets_a_note(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "empty.txt"
    target.write_text("")
    result = await read(ctx, file_path=str(target))
    assert not result.is_error and "empty" in str(result.content)


async def test_offset_past_end_says_how_many_lines(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "short.txt"
    target.write_text("a\nb\n")
    result = await read(ctx, file_path=str(target), offset=10)
    assert "has 2 lines" in str(result.content)


async def test_image_comes_back_as_an_image_block(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "dot.png"
    target.write_bytes(PNG_1X1)
    result = await read(ctx, file_path=str(target))
    assert isinstance(result.content, list)
    image = result.content[-1]
    assert isinstance(image, ImageBlock)
    assert image.media_type == "image/png"
    assert base64.b64decode(image.data) == PNG_1X1


async def test_notebook_is_rendered_cell_by_cell(ctx: ToolContext, tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Title"]},
            {
                "cell_type": "code",
                "source": "print(1 + 1)",
                "outputs": [{"output_type": "stream", "text": ["2\n"]}],
            },
        ],
        "metadata": {"language_info": {"name": "python"}},
    }
    target = tmp_path / "nb.ipynb"
    target.write_text(json.dumps(notebook))
    result = await read(ctx, file_path=str(target))
    text = str(result.content)
    assert "## Cell 0 [markdown]" in text and "# Title" in text
    assert "## Cell 1 [code]" in text and "print(1 + 1)" in text and "2" in text


async def test_binary_file_is_refused(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "blob.bin"
    target.write_bytes(b"\x00\x01\x02binary")
    result = await read(ctx, file_path=str(target))
    assert result.is_error and "binary" in str(result.content)
    assert_says_what_to_do(result.content, "Inspect it with Bash (e.g. `xxd | head`)")
    assert str(target) not in ctx.state.read_files


async def test_malformed_inputs_are_error_results(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n")
    cases: list[tuple[dict[str, object], str]] = [
        ({"file_path": "relative.txt"}, "must be an absolute path"),
        ({"file_path": ""}, "must be a non-empty string"),
        ({"file_path": 42}, "must be a non-empty string"),
        (
            {"file_path": str(tmp_path / "missing.txt")},
            "check the path, or find the file with Glob",
        ),
        ({"file_path": str(tmp_path)}, "list it with Bash (ls) or Glob instead"),
        ({"file_path": str(tmp_path / "f.txt"), "offset": 0}, "must be a positive integer"),
        ({"file_path": str(tmp_path / "f.txt"), "limit": "ten"}, "must be a positive integer"),
        ({"file_path": str(tmp_path / "bad\x00name")}, "remove it"),
    ]
    for case, fix in cases:
        result = await ReadTool().call(case, ctx)
        assert result.is_error, case
        assert_says_what_to_do(result.content, fix)


async def test_a_huge_single_line_is_cut_and_counted(ctx: ToolContext, tmp_path: Path) -> None:
    target = tmp_path / "bundle.min.js"
    target.write_text("z" * 5_000_000 + "\nsecond line\n")
    result = await read(ctx, file_path=str(target))
    text = str(result.content)
    assert "     2\tsecond line" in text
    assert len(text) < 5000


async def test_a_fifo_is_refused_instead_of_blocking(ctx: ToolContext, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    async with asyncio.timeout(5):
        result = await ReadTool().call({"file_path": str(fifo)}, ctx)
    assert result.is_error and "not a regular file" in str(result.content)
    assert_says_what_to_do(result.content, "Read only opens regular files")


async def test_a_device_is_refused(ctx: ToolContext) -> None:
    result = await ReadTool().call({"file_path": "/dev/null"}, ctx)
    assert result.is_error and "not a regular file" in str(result.content)
