"""The Grep tool: ripgrep with the parameters coding agents use.

What the model gets is exactly what rg prints for the same flags, made deterministic:
file lists and counts are sorted by path (rg itself is multi-threaded, so its order varies)
and content mode runs rg with ``--sort path``. ``offset``/``head_limit`` then page through
those entries.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from loopwright.tools.base import PathGuard, ToolBase, ToolContext, ToolResult

if TYPE_CHECKING:
    from loopwright.tools.ripgrep import RgOutput

OutputMode = Literal["files_with_matches", "content", "count"]
OUTPUT_MODES: tuple[OutputMode, ...] = ("files_with_matches", "content", "count")
DEFAULT_HEAD_LIMIT = 250
MAX_LINE_CHARS = 2000
# Appended to ripgrep's own complaint, which names the problem but not the way out.
_FIX_IT = (
    "\nfix the call and search again: pattern is a ripgrep regex (escape ( [ { . * + ? with a "
    "backslash to match them literally), type is a ripgrep type name such as py, js or rust "
    "(or use glob)"
)

GREP_DESCRIPTION = """\
Search file contents with ripgrep (regex syntax of rg, not POSIX grep: escape braces, e.g. \
`interface\\{\\}`).

- output_mode: "files_with_matches" (default) lists matching files; "content" shows \
matching lines (with line numbers by default, -A/-B/-C for context); "count" shows matches \
per file and a total.
- path: file or directory to search (default: the working directory).
- glob filters files (e.g. "*.py", "src/**/*.ts"); type filters by language (e.g. "py", \
"rust", "js").
- -i: case-insensitive. multiline: let patterns span lines (. matches newline).
- Files ignored by .gitignore, hidden files and binary files are skipped, as in rg.
- head_limit caps the entries returned (default 250, 0 for all); offset skips entries for \
paging.
- Use this instead of running grep or rg through Bash."""

GREP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression to search for."},
        "path": {"type": "string", "description": "File or directory to search in."},
        "glob": {"type": "string", "description": 'Only search files matching, e.g. "*.py".'},
        "type": {"type": "string", "description": 'File type to search, e.g. "py", "js".'},
        "output_mode": {"type": "string", "enum": list(OUTPUT_MODES)},
        "-i": {"type": "boolean", "description": "Case-insensitive search."},
        "-n": {"type": "boolean", "description": "Line numbers (content mode; default true)."},
        "-A": {"type": "integer", "minimum": 0, "description": "Lines after each match."},
        "-B": {"type": "integer", "minimum": 0, "description": "Lines before each match."},
        "-C": {"type": "integer", "minimum": 0, "description": "Lines around each match."},
        "multiline": {"type": "boolean", "description": "Patterns may span lines."},
        "head_limit": {
            "type": "integer",
            "minimum": 0,
            "description": "At most this many entries (default 250; 0 = no limit).",
        },
        "offset": {"type": "integer", "minimum": 0, "description": "Skip this many entries."},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class GrepRequest:
    """Validated Grep input."""

    pattern: str
    path: Path
    mode: OutputMode
    rg_args: list[str]
    head_limit: int
    offset: int
    line_numbers: bool = True
    # Set when Read deny rules apply: paths whose lines must not reach the model.
    hidden: Callable[[str], bool] | None = None


def _flag(input: dict[str, Any], key: str) -> bool | str:
    value = input.get(key, False)
    return value if isinstance(value, bool) else f"{key} must be true or false, got {value!r}"


def _count(input: dict[str, Any], key: str, default: int | None) -> int | str | None:
    value = input.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"{key} must be a non-negative integer, got {value!r}"
    return value


def rg_arguments(mode: OutputMode, input: dict[str, Any]) -> list[str] | str:
    """The rg flags (before ``-e pattern -- path``) for a Grep call, or why they are invalid."""
    args = ["--no-config", "--color=never"]
    if mode == "files_with_matches":
        args += ["--files-with-matches", "--null"]
    elif mode == "count":
        args += ["--count", "--null", "--with-filename"]
    else:
        line_numbers = _flag(input | {"-n": input.get("-n", True)}, "-n")
        if isinstance(line_numbers, str):
            return line_numbers
        args += ["--no-heading", "--sort=path"]
        args.append("--line-number" if line_numbers else "--no-line-number")
    for key in ("-A", "-B", "-C"):
        lines = _count(input, key, None)
        if isinstance(lines, str):
            return lines
        if lines is not None and mode == "content":  # context means nothing in other modes
            args += [key, str(lines)]
    for key, rg_flags in (("-i", ["-i"]), ("multiline", ["-U", "--multiline-dotall"])):
        enabled = _flag(input, key)
        if isinstance(enabled, str):
            return enabled
        if enabled:
            args += rg_flags
    for key in ("glob", "type"):
        value = input.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                return f"{key} must be a non-empty string, got {value!r}"
            args += [f"--{key}", value]
    return args


def parse_request(input: dict[str, Any], cwd: Path) -> GrepRequest | str:
    pattern = input.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        return "pattern must be a non-empty string"
    raw_path = input.get("path")
    if raw_path is not None and (not isinstance(raw_path, str) or "\x00" in raw_path):
        return f"path must be a string without NUL bytes, got {raw_path!r}"
    path = Path(os.path.expanduser(raw_path)) if raw_path else cwd
    path = path if path.is_absolute() else cwd / path
    if not path.exists():
        return (
            f"path does not exist: {path}; pass an existing file or directory, "
            "or leave path out to search the working directory"
        )
    mode = input.get("output_mode", "files_with_matches")
    if mode not in OUTPUT_MODES:
        return f"output_mode must be one of {', '.join(OUTPUT_MODES)}, got {mode!r}"
    args = rg_arguments(mode, input)
    if isinstance(args, str):
        return args
    head_limit = _count(input, "head_limit", DEFAULT_HEAD_LIMIT)
    offset = _count(input, "offset", 0)
    if isinstance(head_limit, str) or isinstance(offset, str):
        return str(head_limit if isinstance(head_limit, str) else offset)
    assert head_limit is not None and offset is not None
    line_numbers = input.get("-n", True) is not False
    return GrepRequest(pattern, path, mode, args, head_limit, offset, line_numbers)


def _page(entries: list[str], request: GrepRequest) -> tuple[list[str], str]:
    """The entries in the requested window, and a note when some were left out."""
    end = None if request.head_limit == 0 else request.offset + request.head_limit
    shown = entries[request.offset : end]
    if end is not None and len(entries) > end:
        return (shown, f"\n[showing {len(shown)} of {len(entries)}; use offset={end} for more]")
    return (shown, "")


def _null_paths(stdout: bytes) -> list[str]:
    """The NUL-terminated paths of ``--files-with-matches --null``, sorted."""
    text = stdout.decode("utf-8", errors="surrogateescape")
    return sorted(path for path in text.split("\0") if path)


def _count_pairs(stdout: bytes) -> list[tuple[str, str]]:
    """The ``path\0count`` lines of ``--count --null``, sorted by path."""
    text = stdout.decode("utf-8", errors="surrogateescape")
    pairs = [line.split("\0", 1) for line in text.splitlines() if "\0" in line]
    return sorted((path, count) for path, count in pairs)


def _guarded(request: GrepRequest, guard: PathGuard, cwd: Path) -> GrepRequest:
    """The same search, with rg printing a NUL after each path so every line of output
    can be traced to its file and dropped when a Read deny rule covers that file."""
    args = list(request.rg_args)
    if request.mode == "content":
        args = [a for a in args if a not in ("--line-number", "--no-line-number")]
        args += ["--null", "--line-number"]

    def hidden(path: str) -> bool:
        return guard.denied(path, cwd)

    return replace(request, rg_args=args, hidden=hidden)


def _line_filter(hidden: Callable[[str], bool]) -> Callable[[bytes], bool]:
    def keep(line: bytes) -> bool:
        path, nul, _rest = line.partition(b"\0")
        return not nul or not hidden(path.decode("utf-8", errors="surrogateescape"))

    return keep


_NUMBERED = re.compile(rb"^(\d+)([:-])")


def _visible_lines(lines: list[bytes], line_numbers: bool) -> list[bytes]:
    """``path\0N:text`` lines (hidden files already dropped while rg ran) back in rg's
    usual shape."""
    shaped: list[bytes] = []
    for line in lines:
        path, nul, rest = line.partition(b"\0")
        if not nul:
            shaped.append(line)  # a "--" context separator
            continue
        numbered = _NUMBERED.match(rest)
        if numbered is None:
            shaped.append(path + b":" + rest)
            continue
        body = rest if line_numbers else rest[numbered.end() :]
        shaped.append(path + numbered.group(2) + body)
    # Drop separators left dangling where a hidden file's block was.
    return [ln for i, ln in enumerate(shaped) if ln != b"--" or 0 < i < len(shaped) - 1]


def format_files(output: RgOutput, request: GrepRequest) -> str:
    files = _null_paths(output.stdout)
    if request.hidden is not None:
        files = [f for f in files if not request.hidden(f)]
    shown, note = _page(files, request)
    if not files:
        return "No files found"
    if not shown:
        return f"No entries at offset {request.offset} ({len(files)} files matched)"
    return f"Found {len(files)} files\n" + "\n".join(_clean(shown)) + note


def format_counts(output: RgOutput, request: GrepRequest) -> str:
    pairs = _count_pairs(output.stdout)
    if request.hidden is not None:
        pairs = [(path, count) for path, count in pairs if not request.hidden(path)]
    if not pairs:
        return "No matches found"
    # The total covers every file, also those outside the head_limit/offset window.
    total = sum(int(count) for _, count in pairs if count.strip().isdigit())
    shown, note = _page([f"{path}:{count}" for path, count in pairs], request)
    summary = f"\n\nFound {total} matching lines in {len(pairs)} files"
    return "\n".join(_clean(shown)) + note + summary


def format_content(lines: list[bytes], complete: bool, request: GrepRequest) -> str:
    """Matching lines in the requested window; rg was stopped once it had printed enough."""
    if not lines:
        return "No matches found"
    end = None if request.head_limit == 0 else request.offset + request.head_limit
    shown = [ln.decode("utf-8", errors="replace") for ln in lines[request.offset : end]]
    if not shown:
        return f"No entries at offset {request.offset} ({len(lines)} lines matched)"
    cut = [ln if len(ln) <= MAX_LINE_CHARS else ln[:MAX_LINE_CHARS] + " …" for ln in shown]
    more = end is not None and (len(lines) > end or not complete)
    note = f"\n[more lines not shown; use offset={end} to continue]" if more else ""
    return "\n".join(cut) + note


def _clean(paths: list[str]) -> list[str]:
    """Undecodable bytes in file names shown as U+FFFD rather than failing."""
    return [p.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for p in paths]


@dataclass(frozen=True, slots=True)
class GrepTool(ToolBase):
    """Content search through the bundled ripgrep."""

    name: str = "Grep"
    description: str = GREP_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: GREP_SCHEMA)
    read_only: bool = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        request = parse_request(input, ctx.state.cwd)
        if isinstance(request, str):
            return ToolResult.error(request)
        guard = ctx.services.read_guard
        if guard is not None and guard.active:
            request = _guarded(request, guard, ctx.state.cwd)
        args = [*request.rg_args, "-e", request.pattern, "--", str(request.path)]
        from loopwright.tools.ripgrep import run_rg  # start-up: loads with the first search

        try:
            if request.mode == "content":
                return await self._content(args, request, ctx)
            output = await run_rg(args, ctx.state.cwd)
        except FileNotFoundError as exc:
            return ToolResult.error(str(exc))
        except TimeoutError:
            return ToolResult.error("the search timed out; narrow path, glob or type")
        if output.exit_code == 2 and not output.stdout:
            return ToolResult.error(
                f"ripgrep rejected the search: {output.stderr.strip()}{_FIX_IT}"
            )
        format_output = format_files if request.mode == "files_with_matches" else format_counts
        return ToolResult(
            format_output(output, request) + _warnings(output.exit_code, output.stderr)
        )

    async def _content(self, args: list[str], request: GrepRequest, ctx: ToolContext) -> ToolResult:
        # One line more than the window tells whether there is more to page through.
        wanted = None if request.head_limit == 0 else request.offset + request.head_limit + 1
        keep = None
        if request.hidden is not None:
            keep = _line_filter(request.hidden)  # hidden files' lines are never counted
        from loopwright.tools.ripgrep import run_rg_lines  # start-up: the first search

        output = await run_rg_lines(args, ctx.state.cwd, wanted, keep=keep)
        if output.exit_code == 2 and not output.lines:
            return ToolResult.error(
                f"ripgrep rejected the search: {output.stderr.strip()}{_FIX_IT}"
            )
        lines = output.lines
        if request.hidden is not None:
            lines = _visible_lines(lines, request.line_numbers)
        text = format_content(lines, output.complete, request)
        return ToolResult(text + _warnings(output.exit_code, output.stderr))


def _warnings(exit_code: int, stderr: str) -> str:
    if exit_code != 2 or not stderr.strip():
        return ""
    return f"\n[some files could not be searched: {stderr.strip()[:500]}]"
