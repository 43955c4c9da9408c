"""``loopwright sessions list|show|export``: the transcripts of this directory's sessions."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from loopwright.cli.render import Renderer, to_json_line
from loopwright.cli.viewer import build_timeline, render_session_html
from loopwright.errors import LoopwrightError
from loopwright.sessions import (
    SessionNotFoundError,
    get_session_messages,
    list_sessions,
    open_store,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loopwright sessions")
    parser.add_argument("--cwd", help="the project directory (default: current)")
    parser.add_argument("--session-store", help="jsonl (default), sqlite:PATH or postgresql://…")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="sessions of this directory, newest first")
    listing.add_argument("--all", action="store_true", help="sessions of every directory")
    listing.add_argument("--json", action="store_true")
    show = commands.add_parser("show", help="the messages of one session")
    show.add_argument("session_id")
    show.add_argument("--json", action="store_true", help="one JSON message per line")
    export = commands.add_parser("export", help="one session as a self-contained HTML page")
    export.add_argument("session_id")
    export.add_argument(
        "-o", "--output", help="file to write (default: session-<id>.html; - for stdout)"
    )
    return parser


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


async def _list(args: argparse.Namespace) -> int:
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        infos = await list_sessions(
            None if args.all else args.cwd, store=store, all_projects=args.all
        )
    finally:
        await store.aclose()
    if args.json:
        for info in infos:
            print(
                json.dumps(
                    {
                        "session_id": info.session_id,
                        "cwd": info.cwd,
                        "updated_at": info.updated_at,
                        "summary": info.summary,
                        "entries": info.entry_count,
                    }
                )
            )
        return 0
    table = Table("session", "updated", "entries", "summary")
    for info in infos:
        table.add_row(info.session_id, _when(info.updated_at), str(info.entry_count), info.summary)
    Console().print(table)
    return 0


async def _show(args: argparse.Namespace) -> int:
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        messages = await get_session_messages(args.session_id, store=store)
    finally:
        await store.aclose()
    if args.json:
        for message in messages:
            print(to_json_line(message))
        return 0
    renderer = Renderer(show_prompt=True)
    for message in messages:
        renderer.show(message)
    return 0


async def _export(args: argparse.Namespace) -> int:
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        entries = await store.load(args.session_id)
    finally:
        await store.aclose()
    if not entries:
        raise SessionNotFoundError(args.session_id, type(store).__name__)
    page = render_session_html(build_timeline(args.session_id, entries))
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    target = Path(args.output or f"session-{args.session_id}.html")
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        print(
            f"loopwright sessions: cannot write {target}: {exc.strerror or exc}; pass -o with "
            "a path in a writable directory, or -o - for standard output",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {target}")
    return 0


def sessions_command(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        if args.command == "list":
            return asyncio.run(_list(args))
        if args.command == "export":
            return asyncio.run(_export(args))
        return asyncio.run(_show(args))
    except LoopwrightError as exc:
        print(f"loopwright sessions: {exc}", file=sys.stderr)
        return 1
