"""Do you trust this folder? Asked once per folder before its settings take effect.

A freshly cloned repository can run commands at start-up (hooks, ``.mcp.json`` stdio
servers) and grant itself permissions. Before the interactive session starts, the REPL
shows what the checkout would get (:func:`checkout_capabilities`, read, never run) and
asks. Yes is remembered in ``$LOOPWRIGHT_HOME/trusted_folders.json`` (0600) and not asked
again; no starts the session with ``trust_project=False`` (only what restricts is kept)
and asks again next time. A checkout that grants nothing is not asked about. Headless
runs (print mode) never ask: they keep what their flags say.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.markup import escape

from loopwright.cli.terminal_text import visible_line
from loopwright.options import Options
from loopwright.private_files import FILE_MODE, make_private_dirs
from loopwright.settings.checkout_trust import CheckoutCapabilities, checkout_capabilities
from loopwright.stores.base import loopwright_home

TRUST_FILE_NAME = "trusted_folders.json"


def trust_path() -> Path:
    return loopwright_home() / TRUST_FILE_NAME


def trusted_folders(path: Path | None = None) -> list[str]:
    where = path or trust_path()
    try:
        data: object = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []  # unreadable: nothing is trusted, so the question is asked again
    folders = cast(dict[str, Any], data).get("folders") if isinstance(data, dict) else None
    return [str(f) for f in cast(list[Any], folders)] if isinstance(folders, list) else []


def remember_trust(root: Path, path: Path | None = None) -> None:
    where = path or trust_path()
    folders = trusted_folders(where)
    if str(root) not in folders:
        folders.append(str(root))
    make_private_dirs(where.parent)
    temporary = where.with_name(f".{where.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps({"folders": folders}, indent=2) + "\n")
    os.replace(temporary, where)


def capability_lines(found: CheckoutCapabilities) -> list[str]:
    def shown(items: tuple[object, ...]) -> str:
        return ", ".join(escape(visible_line(str(item))) for item in items)

    lines: list[str] = []
    for label, items in (
        ("runs hooks", found.hooks),
        ("starts MCP servers", found.mcp_servers),
        ("allows", found.allow_rules),
        ("adds directories", found.additional_directories),
        ("sets environment variables", found.env),
    ):
        if items:
            lines.append(f"  [yellow]•[/yellow] {label}: {shown(items)}")
    return lines


def ask_trust(options: Options, console: Console, read_key: Callable[[], str], cwd: str) -> Options:
    """``options`` as the person decides: unchanged when trusted, else untrusted."""
    if not options.project_settings or not options.trust_project:
        return options  # already told to read less from the checkout
    found = checkout_capabilities(cwd)
    if found.empty or str(found.root) in trusted_folders():
        return options
    console.print(
        f"[bold yellow]Do you trust the files in {escape(visible_line(str(found.root)))}?"
        "[/bold yellow]\nIts settings would let it:"
    )
    for line in capability_lines(found):
        console.print(line)
    console.print("  \\[y]es, trust this folder · \\[n]o, start without what it grants: ", end="")
    key = read_key().lower()
    console.print(key if key.isprintable() else "")
    if key == "y":
        remember_trust(found.root)
        console.print("[dim]trusted; not asked again for this folder[/dim]")
        return options
    console.print(
        "[dim]not trusted: its hooks, MCP servers, allow rules, directories and environment "
        "are off for this session (its deny and ask rules still apply)[/dim]"
    )
    return dataclasses.replace(options, trust_project=False)
