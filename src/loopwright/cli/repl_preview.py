"""What a tool call will do, shown before the user answers its permission question.

Edit: a unified diff of the file as it is and as it will be (the change in its context).
Write: a diff over an existing file, the whole content of a new one. Bash: the whole
command and the directory it runs in. Everything is session text, so it goes through
:func:`visible` (escape sequences shown, never obeyed) and is never cut: a change the
user cannot see the end of is a change they approve blind (rich wraps long lines).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from rich.markup import escape

from loopwright.cli.terminal_text import visible

CONTEXT_LINES = 3


def _shown(text: str) -> str:
    return escape(visible(text))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _resolve(raw: object, cwd: str) -> Path | None:
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(cwd or ".") / path


def _lines(text: str) -> list[str]:
    """Lines split at newlines only: a carriage return or form feed stays in its line, where
    :func:`visible` shows it (``splitlines`` would turn it into a line break)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def diff_lines(before: str, after: str, name: str) -> list[str]:
    """A coloured unified diff as markup lines: removed red, added green, context dim."""
    lines: list[str] = []
    for line in difflib.unified_diff(
        _lines(before),
        _lines(after),
        f"{name} (now)",
        f"{name} (after)",
        n=CONTEXT_LINES,
        lineterm="",
    ):
        text = _shown(line)
        if line.startswith(("---", "+++")):
            lines.append(f"[bold]{text}[/bold]")
        elif line.startswith("@@"):
            lines.append(f"[cyan]{text}[/cyan]")
        elif line.startswith("-"):
            lines.append(f"[red]{text}[/red]")
        elif line.startswith("+"):
            lines.append(f"[green]{text}[/green]")
        else:
            lines.append(f"[dim]{text}[/dim]")
    return lines or ["[dim](no change to the file's text)[/dim]"]


def _edit_preview(tool_input: dict[str, Any], cwd: str) -> list[str]:
    path = _resolve(tool_input.get("file_path"), cwd)
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if path is None or not isinstance(old, str) or not isinstance(new, str):
        return []
    current = _read(path)
    if current is None or not old or old not in current:
        # The tool will refuse; show the strings themselves so nothing is hidden.
        before, after = old, new
        note = ["[dim](the text to replace is not in the file as it is now)[/dim]"]
    else:
        count = -1 if tool_input.get("replace_all") else 1
        before, after = current, current.replace(old, new, count)
        note = []
    return [*note, *diff_lines(before, after, str(path))]


def _write_preview(tool_input: dict[str, Any], cwd: str) -> list[str]:
    path = _resolve(tool_input.get("file_path"), cwd)
    content = tool_input.get("content")
    if path is None or not isinstance(content, str):
        return []
    current = _read(path) if path.exists() else None
    if current is not None:
        return diff_lines(current, content, str(path))
    lines = _lines(content)
    header = f"[bold]new file {_shown(str(path))}[/bold] ({len(lines)} lines)"
    return [header, *(f"[green]+ {_shown(line)}[/green]" for line in lines)]


def _bash_preview(tool_input: dict[str, Any], cwd: str) -> list[str]:
    command = tool_input.get("command")
    if not isinstance(command, str):
        return []
    lines = [f"[dim]in[/dim] {_shown(cwd or str(Path.cwd()))}"]
    lines.extend(f"  [bold]$[/bold] {_shown(line)}" for line in command.split("\n"))
    return lines


def preview_lines(tool_name: str, tool_input: dict[str, Any], cwd: str) -> list[str]:
    """Markup lines showing what the call will change or run; [] for other tools."""
    match tool_name:
        case "Edit":
            return _edit_preview(tool_input, cwd)
        case "Write":
            return _write_preview(tool_input, cwd)
        case "Bash":
            return _bash_preview(tool_input, cwd)
        case _:
            return []
