"""Read: images typed by their bytes (not their names) and fitted to the providers' limits."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

from PIL import Image

from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.base import ToolContext, ToolResult
from loopwright.tools.read import ReadTool
from loopwright.tools.read_image import MAX_LONG_EDGE_PX, MAX_RAW_BYTES


async def read(ctx: ToolContext, path: Path) -> ToolResult:
    return await ReadTool().call({"file_path": str(path)}, ctx)


def save(path: Path, size: tuple[int, int], fmt: str, mode: str = "RGB") -> Path:
    Image.new(mode, size, (200, 30, 30) if mode == "RGB" else None).save(path, format=fmt)
    return path


def sent_image(result: ToolResult) -> tuple[ImageBlock, Image.Image]:
    assert not result.is_error, result.content
    assert isinstance(result.content, list)
    block = result.content[-1]
    assert isinstance(block, ImageBlock)
    return block, Image.open(io.BytesIO(base64.b64decode(block.data)))


async def test_a_jpeg_named_png_is_sent_as_a_jpeg(ctx: ToolContext, tmp_path: Path) -> None:
    block, image = sent_image(await read(ctx, save(tmp_path / "photo.png", (40, 30), "JPEG")))
    assert block.media_type == "image/jpeg" and image.format == "JPEG"


async def test_an_image_without_a_suffix_is_still_an_image(
    ctx: ToolContext, tmp_path: Path
) -> None:
    block, _ = sent_image(await read(ctx, save(tmp_path / "screenshot", (20, 20), "PNG")))
    assert block.media_type == "image/png"


async def test_a_small_image_is_sent_byte_for_byte(ctx: ToolContext, tmp_path: Path) -> None:
    path = save(tmp_path / "small.gif", (64, 48), "GIF")
    block, _ = sent_image(await read(ctx, path))
    assert base64.b64decode(block.data) == path.read_bytes()


async def test_a_large_image_is_scaled_to_the_long_edge_limit(
    ctx: ToolContext, tmp_path: Path
) -> None:
    result = await read(ctx, save(tmp_path / "big.png", (4000, 1000), "PNG"))
    block, image = sent_image(result)
    assert image.size == (MAX_LONG_EDGE_PX, MAX_LONG_EDGE_PX // 4)
    assert block.media_type == "image/png"
    caption = result.content[0]
    assert isinstance(caption, TextBlock) and "resized from 4000x1000 to 1568x392" in caption.text


async def test_a_photo_too_heavy_for_the_api_is_recompressed_under_the_limit(
    ctx: ToolContext, tmp_path: Path
) -> None:
    noise = Image.frombytes("RGB", (1500, 1500), os.urandom(1500 * 1500 * 3))
    path = tmp_path / "noise.png"
    noise.save(path, format="PNG")  # incompressible: ~6.7 MB, over the 5 MB limit
    assert path.stat().st_size > MAX_RAW_BYTES
    block, image = sent_image(await read(ctx, path))
    assert len(base64.b64decode(block.data)) <= MAX_RAW_BYTES
    assert block.media_type == "image/jpeg" and image.size == (1500, 1500)


async def test_a_bmp_is_converted_to_png(ctx: ToolContext, tmp_path: Path) -> None:
    block, image = sent_image(await read(ctx, save(tmp_path / "old.bmp", (10, 10), "BMP")))
    assert block.media_type == "image/png" and image.format == "PNG"


async def test_a_text_file_named_like_an_image_is_refused_with_what_to_do(
    ctx: ToolContext, tmp_path: Path
) -> None:
    fake = tmp_path / "diagram.png"
    fake.write_text("not really a picture\n")
    result = await read(ctx, fake)
    assert result.is_error
    assert "its content is not a PNG" in str(result.content) and "`file`" in str(result.content)


async def test_a_text_file_starting_like_a_bitmap_is_read_as_text(
    ctx: ToolContext, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("BM is a bitmap signature, but this is text\n")
    result = await read(ctx, notes)
    assert not result.is_error and "this is text" in str(result.content)
