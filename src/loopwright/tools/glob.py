"""The Glob tool: find files by name pattern, newest first."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loopwright.tools.base import ToolBase, ToolContext, ToolResult

if TYPE_CHECKING:
    from loopwright.tools.glob_pattern import CompiledGlob

MAX_RESULTS = 100
# Never worth descending into: version-control internals are not project files.
SKIPPED_DIRECTORIES = frozenset({".git", ".hg", ".svn"})

GLOB_DESCRIPTION = """\
Find files by name pattern, newest (most recently modified) first.

- Patterns: `*` (within one directory level), `**` (any depth), `?`, `[abc]`, `{a,b}`; e.g. \
"**/*.py", "src/**/*.ts", "*.{json,yaml}".
- path: directory to search (default: the working directory); the pattern is relative to it.
- At most 100 paths are returned; a note says how many more matched (narrow the pattern).
- Hidden and .gitignore'd files are included unless respect_gitignore is true; .git is \
never searched."""

GLOB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": 'Glob pattern, e.g. "**/*.py".'},
        "path": {"type": "string", "description": "Directory to search (default: cwd)."},
        "respect_gitignore": {
            "type": "boolean",
            "description": "Skip files ignored by .gitignore/.ignore (default false).",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


def _walk(root: Path, compiled: CompiledGlob) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(relative path, entry) for every file under ``root`` within the pattern's depth."""
    stack: list[tuple[str, str, int]] = [(str(root), "", 0)]
    while stack:
        directory, relative, depth = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # unreadable or vanished directories are skipped, as find/rg do
        for entry in entries:
            child = f"{relative}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                deeper = compiled.max_depth is None or depth + 1 < compiled.max_depth
                if deeper and entry.name not in SKIPPED_DIRECTORIES:
                    stack.append((entry.path, child + "/", depth + 1))
            else:
                yield (child, entry)


def _matches_on_disk(root: Path, compiled: CompiledGlob) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    fullmatch = compiled.matcher.fullmatch
    for relative, entry in _walk(root, compiled):
        if fullmatch(relative):
            try:
                found.append((entry.stat().st_mtime_ns, entry.path))
            except OSError:
                continue
    return found


def _stat_matches(
    root: Path, relative_paths: list[str], compiled: CompiledGlob
) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for relative in relative_paths:
        if compiled.matcher.fullmatch(relative):
            full = os.path.join(root, relative)
            try:
                found.append((os.stat(full).st_mtime_ns, full))
            except OSError:
                continue
    return found


async def _matches_not_ignored(root: Path, compiled: CompiledGlob) -> list[tuple[int, str]] | str:
    """Matches among the files rg would search (it applies .gitignore, .ignore, .rgignore)."""
    args = ["--no-config", "--files", "--hidden", "--no-require-git", "--null"]
    args += ["--glob", "!.git", "--", "."]
    from loopwright.tools.ripgrep import run_rg  # start-up: loads with the first search

    try:
        output = await run_rg(args, root)
    except FileNotFoundError as exc:
        return str(exc)
    except TimeoutError:
        return "listing the files timed out; search a smaller directory"
    names = output.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    relative = [name.removeprefix("./") for name in names if name]
    return await asyncio.to_thread(_stat_matches, root, relative, compiled)


def _format(found: list[tuple[int, str]]) -> str:
    if not found:
        return "No files found"
    found.sort(key=lambda item: (-item[0], item[1]))
    shown = [path for _, path in found[:MAX_RESULTS]]
    left_out = len(found) - len(shown)
    note = (
        f"\n[{left_out} more files matched and are not shown; narrow the pattern]"
        if left_out
        else ""
    )
    return "\n".join(shown) + note


@dataclass(frozen=True, slots=True)
class GlobTool(ToolBase):
    """File-name search with newest-first ordering and a result cap."""

    name: str = "Glob"
    description: str = GLOB_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: GLOB_SCHEMA)
    read_only: bool = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern, raw_path = input.get("pattern"), input.get("path")
        if not isinstance(pattern, str) or not pattern:
            return ToolResult.error("pattern must be a non-empty string")
        if raw_path is not None and not isinstance(raw_path, str):
            return ToolResult.error(f"path must be a string, got {raw_path!r}")
        if "\x00" in pattern or (raw_path and "\x00" in raw_path):
            return ToolResult.error("pattern and path must not contain NUL bytes; remove them")
        respect_gitignore = input.get("respect_gitignore", False)
        if not isinstance(respect_gitignore, bool):
            return ToolResult.error("respect_gitignore must be true or false")
        base = Path(os.path.expanduser(raw_path)) if raw_path else ctx.state.cwd
        base = base if base.is_absolute() else ctx.state.cwd / base
        if not base.is_dir():
            return ToolResult.error(
                f"path is not a directory: {base}; pass an existing directory, "
                "or leave path out to search the working directory"
            )
        from loopwright.tools.glob_pattern import compile_glob  # start-up: the first search

        try:
            compiled = compile_glob(pattern)
        except ValueError as exc:
            return ToolResult.error(str(exc))
        root = Path(os.path.normpath(base / compiled.literal_prefix))
        if not root.is_dir():
            return ToolResult("No files found")
        if respect_gitignore:
            found = await _matches_not_ignored(root, compiled)
            if isinstance(found, str):
                return ToolResult.error(found)
        else:
            found = await asyncio.to_thread(_matches_on_disk, root, compiled)
        guard = ctx.services.read_guard
        if guard is not None and guard.active:
            # Whatever the pattern's syntax, a file a Read deny rule covers is not listed.
            found = [(m, p) for m, p in found if not guard.denied(p, ctx.state.cwd)]
        return ToolResult(_format(found))
