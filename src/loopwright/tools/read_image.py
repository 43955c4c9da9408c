"""Images for the Read tool: typed by their content, fitted to what providers accept.

The providers document their limits: Anthropic rejects images over 8000 px a side and
5 MB, and resizes anything with a long edge over 1568 px (slower, same tokens as a
1568 px image); OpenAI scales high-detail images to fit 2048 px and then 768 px on the
short side. So an image is sent as it is when it already fits, else scaled down to a
1568 px long edge (never up) and re-encoded, PNG for lossless sources when that fits,
else JPEG. A file whose name says image but whose bytes do not is refused, and formats
the providers do not take (BMP, TIFF, ICO) are converted to PNG.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.base import ToolResult

MAX_LONG_EDGE_PX = 1568
# The 5 MB limit applies to the base64 text; 3/4 of it is the most raw bytes that fit.
MAX_ENCODED_BYTES = 5 * 1024 * 1024
MAX_RAW_BYTES = MAX_ENCODED_BYTES * 3 // 4
# Beyond this, reading the file at all is refused (a decompression-bomb-sized input).
MAX_SOURCE_BYTES = 64 * 1024 * 1024
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})

_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
)
# Read by Pillow and converted to PNG: the providers do not take these as they are.
_CONVERTIBLE = ((b"BM", "BMP"), (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"))
_CONVERTIBLE_SUFFIXES = frozenset({".bmp", ".tif", ".tiff"})


def sniff_image(head: bytes, suffix: str) -> str | None:
    """The media type the bytes declare: image/png|jpeg|gif|webp, ``convert`` for a BMP or
    TIFF (we turn it into PNG; only when the name says so, as their two-byte magic is
    common in text), or None for anything else."""
    for magic, offset, media_type in _SIGNATURES:
        if head[offset : offset + len(magic)] == magic and (
            media_type != "image/webp" or head[:4] == b"RIFF"
        ):
            return media_type
    if suffix in _CONVERTIBLE_SUFFIXES and any(head.startswith(m) for m, _ in _CONVERTIBLE):
        return "convert"
    return None


@dataclass(frozen=True, slots=True)
class Fitted:
    media_type: str
    data: bytes
    note: str


def fit_image(raw: bytes, media_type: str) -> Fitted:
    """The image as a provider will take it (see the module docstring)."""
    from PIL import Image  # deferred: ~30 ms, needed only when an image is read

    with Image.open(io.BytesIO(raw)) as opened:
        width, height = opened.size
        scale = min(1.0, MAX_LONG_EDGE_PX / max(width, height))
        if scale == 1.0 and media_type != "convert" and len(raw) <= MAX_RAW_BYTES:
            return Fitted(media_type, raw, f"{width}x{height}")
        image: Any = opened.convert("RGBA" if _has_alpha(opened) else "RGB")
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    lossless = media_type in ("image/png", "image/gif", "convert")
    fitted = _encode(image, lossless)
    shown = f"{image.size[0]}x{image.size[1]}"
    resized = f"resized from {width}x{height} to {shown}" if scale < 1.0 else shown
    return Fitted(fitted.media_type, fitted.data, f"{resized}, sent as {fitted.media_type}")


def _has_alpha(image: Any) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info


def _encode(image: Any, lossless: bool) -> Fitted:
    if lossless:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
        if buffer.tell() <= MAX_RAW_BYTES:
            return Fitted("image/png", buffer.getvalue(), "")
    rgb = image.convert("RGB")
    for quality in (85, 70, 50, 30):
        buffer = io.BytesIO()
        rgb.save(buffer, format="JPEG", quality=quality, optimize=True)
        if buffer.tell() <= MAX_RAW_BYTES:
            break
    return Fitted("image/jpeg", buffer.getvalue(), "")


def image_result(path: Path, media_type: str) -> ToolResult:
    """The Read result for an image file whose content was sniffed as ``media_type``."""
    size = path.stat().st_size
    if size > MAX_SOURCE_BYTES:
        return ToolResult.error(
            f"image {path} is {size} bytes, too large to read; shrink or crop it first "
            "(e.g. with ImageMagick via Bash)"
        )
    try:
        fitted = fit_image(path.read_bytes(), media_type)
    except Exception as exc:  # Pillow raises many types for damaged files
        return ToolResult.error(f"image {path} could not be decoded ({exc}); is it damaged?")
    data = base64.b64encode(fitted.data).decode("ascii")
    return ToolResult(
        [
            TextBlock(f"Image {path} ({size} bytes, {fitted.note})"),
            ImageBlock(fitted.media_type, data),
        ]
    )


def mislabelled_image(path: Path) -> ToolResult:
    return ToolResult.error(
        f"{path} is named like an image but its content is not a PNG, JPEG, GIF, WebP, BMP "
        "or TIFF image; inspect it with Bash (e.g. `file` or `xxd | head`)"
    )
