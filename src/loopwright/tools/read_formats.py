"""Rendering of the non-plain-text files Read understands: notebooks and PDFs."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any, cast

from loopwright.tools.base import ToolResult

MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024
MAX_OUTPUT_TEXT_CHARS = 10_000
MAX_PDF_PAGES_PER_CALL = 20
_PAGE_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def _joined(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(part) for part in cast(list[object], source))
    return str(source or "")


def _render_output(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        text = _joined(output.get("text"))
    elif kind == "error":
        text = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    else:
        data = cast(dict[str, Any], output.get("data") or {})
        if "text/plain" in data:
            text = _joined(data["text/plain"])
        elif any(key.startswith("image/") for key in data):
            text = "[image output]"
        else:
            text = f"[{kind} output]"
    if len(text) > MAX_OUTPUT_TEXT_CHARS:
        text = text[:MAX_OUTPUT_TEXT_CHARS] + " … [output cut]"
    return text


def render_notebook(path: Path) -> ToolResult:
    """Each cell as a header, its source and its outputs, so the model sees the notebook."""
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        return ToolResult.error(
            f"notebook {path} is {size} bytes (limit {MAX_NOTEBOOK_BYTES}); read a slice of "
            "its cells with Bash, e.g. `jq '.cells[0:20]' file.ipynb`"
        )
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return ToolResult.error(f"{path} is not a valid notebook (JSON error: {exc})")
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return ToolResult.error(f"{path} is not a valid notebook: no 'cells' list")
    language = str(
        cast(dict[str, Any], notebook).get("metadata", {}).get("language_info", {}).get("name")
        or "python"
    )
    parts: list[str] = []
    for index, raw_cell in enumerate(cast(list[Any], cells)):
        if not isinstance(raw_cell, dict):
            continue
        cell = cast(dict[str, Any], raw_cell)
        cell_type = str(cell.get("cell_type", "unknown"))
        header = f"## Cell {index} [{cell_type}]"
        if cell.get("id"):
            header += f" id={cell['id']}"
        body = _joined(cell.get("source"))
        fence = f"```{language}\n{body}\n```" if cell_type == "code" else body
        parts.append(f"{header}\n{fence}")
        outputs = [_render_output(o) for o in cell.get("outputs") or [] if isinstance(o, dict)]
        if outputs:
            parts.append("Outputs:\n" + "\n".join(outputs))
    if not parts:
        return ToolResult(f"<notebook {path} has no cells>")
    return ToolResult("\n\n".join(parts))


def _parse_pages(pages: object, page_count: int) -> range | str:
    if pages is None:
        if page_count > MAX_PDF_PAGES_PER_CALL:
            return (
                f'the PDF has {page_count} pages; pass pages (e.g. "1-{MAX_PDF_PAGES_PER_CALL}")'
                f" to read at most {MAX_PDF_PAGES_PER_CALL} pages at a time"
            )
        return range(1, page_count + 1)
    match = _PAGE_RANGE.match(pages) if isinstance(pages, str) else None
    if match is None:
        return f'pages must look like "3" or "1-5", got {pages!r}'
    first = int(match.group(1))
    last = int(match.group(2) or first)
    if first < 1 or last < first:
        return f'invalid page range {pages!r}; pages count from 1, lower first, e.g. "2-5"'
    if first > page_count:
        return f"page {first} is past the end; the PDF has {page_count} pages"
    if last - first + 1 > MAX_PDF_PAGES_PER_CALL:
        return f"at most {MAX_PDF_PAGES_PER_CALL} pages per call; narrow {pages!r}"
    return range(first, min(last, page_count) + 1)


def render_pdf(path: Path, pages: object) -> ToolResult:
    """Text of the requested pages, via pypdf when it is installed."""
    try:
        pypdf = importlib.import_module("pypdf")
    except ImportError:
        return ToolResult.error(
            f"cannot read PDF {path}: PDF support needs the optional 'pypdf' package "
            "(pip install pypdf); or extract text with Bash (e.g. pdftotext) instead"
        )
    try:
        reader = pypdf.PdfReader(str(path))
        page_count = len(reader.pages)
        selected = _parse_pages(pages, page_count)
        if isinstance(selected, str):
            return ToolResult.error(selected)
        parts = [
            f"--- page {number} ---\n{reader.pages[number - 1].extract_text() or ''}"
            for number in selected
        ]
    except Exception as exc:  # pypdf raises many kinds on damaged files
        return ToolResult.error(f"cannot read PDF {path}: {exc}")
    return ToolResult(f"PDF {path}: {page_count} pages\n\n" + "\n\n".join(parts))
