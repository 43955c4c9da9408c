"""``loopwright sessions list|show|export|prune``: the transcripts of this directory's sessions.

Ids are printed whole and any unique prefix is accepted; ``--cwd`` and ``--session-store``
may stand before or after the subcommand (``sessions export ID --cwd X``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from loopwright.cli.approvals import describe as describe_pending
from loopwright.cli.durations import parse_duration
from loopwright.cli.render import Renderer, to_json_line
from loopwright.cli.session_ids import resolve_session_id
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.cli.viewer import build_timeline, render_session_html
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.stores import (
    SessionInfo,
    SessionNotFoundError,
    get_pending_approvals,
    list_sessions,
    open_store,
)
from loopwright.stores.whole_history import whole_history
from loopwright.tools.spill import remove_session_outputs


def _add_location(parser: argparse.ArgumentParser, *, default: object) -> None:
    parser.add_argument("--cwd", default=default, help="the project directory (default: .)")
    parser.add_argument(
        "--session-store", default=default, help="jsonl (default), sqlite:PATH or postgresql://…"
    )


def _subcommand(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str
) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=text, description=text)
    # SUPPRESS: a subcommand that is not given --cwd keeps the value given before it.
    _add_location(parser, default=argparse.SUPPRESS)
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loopwright sessions")
    _add_location(parser, default=None)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = _subcommand(commands, "list", "sessions of this directory, newest first")
    listing.add_argument("--all", action="store_true", help="sessions of every directory")
    listing.add_argument("--json", action="store_true")
    show = _subcommand(commands, "show", "the messages of one session")
    show.add_argument("session_id", help="a session id or a unique prefix of one")
    show.add_argument("--json", action="store_true", help="one JSON message per line")
    export = _subcommand(commands, "export", "one session as a self-contained HTML page")
    export.add_argument("session_id", help="a session id or a unique prefix of one")
    export.add_argument(
        "-o", "--output", help="file to write (default: session-<id>.html; - for stdout)"
    )
    prune = _subcommand(commands, "prune", "delete old sessions and their saved tool output")
    prune.add_argument(
        "--older-than", required=True, help="last updated longer ago than this: 30d, 12h, 90m"
    )
    prune.add_argument("--all", action="store_true", help="in every directory, not only this")
    prune.add_argument("--dry-run", action="store_true", help="only say what would go")
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
            row = {
                "session_id": info.session_id,
                "cwd": info.cwd,
                "updated_at": info.updated_at,
                "summary": info.summary,
                "entries": info.entry_count,
            }
            print(json.dumps(row, ensure_ascii=False))
        return 0
    for line in _table_lines(infos, with_directory=args.all):
        print(line)
    return 0


def _table_lines(infos: list[SessionInfo], *, with_directory: bool) -> list[str]:
    """Aligned columns; ids and directories whole (users copy them), only the summary is
    cut to the terminal's width (80 columns when piped)."""
    header = ["session", *(["directory"] if with_directory else []), "updated", "entries"]
    rows = [
        [
            visible_line(info.session_id),
            *([visible_line(info.cwd or "?")] if with_directory else []),
            _when(info.updated_at),
            str(info.entry_count),
        ]
        for info in infos
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    used = sum(widths) + 2 * len(widths)
    room = max(20, shutil.get_terminal_size().columns - used)
    summaries = ["summary", *(visible_line(info.summary) for info in infos)]
    lines: list[str] = []
    for cells, summary in zip([header, *rows], summaries, strict=True):
        text = summary if len(summary) <= room else summary[: room - 1] + "…"
        padded = (cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
        lines.append("  ".join(padded) + "  " + text)
    return [line.rstrip() for line in lines]


async def _show(args: argparse.Namespace) -> int:
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        session_id = await resolve_session_id(store, args.session_id, args.cwd)
        # The whole conversation, compactions marked where they happened.
        entries = await store.load(session_id)
        if not entries:
            raise SessionNotFoundError(session_id, type(store).__name__)
        messages = whole_history(entries)
        waiting = await get_pending_approvals(session_id, store=store)
    finally:
        await store.aclose()
    if args.json:
        for message in messages:
            print(to_json_line(message))
        for call in waiting:  # the calls that wait for a person, after the messages
            print(json.dumps({"type": "pending_approval", **call.to_dict()}, default=str))
        return 0
    renderer = Renderer(show_prompt=True)
    for message in messages:
        renderer.show(message)
    for call in waiting:
        print(describe_pending(session_id, call))
    return 0


async def _export(args: argparse.Namespace) -> int:
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        session_id = await resolve_session_id(store, args.session_id, args.cwd)
        entries = await store.load(session_id)
    finally:
        await store.aclose()
    if not entries:
        raise SessionNotFoundError(session_id, type(store).__name__)
    page = render_session_html(build_timeline(session_id, entries))
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    target = Path(args.output or f"session-{session_id}.html")
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        print(
            f"loopwright sessions: cannot write {target}: {exc.strerror or exc}; pass -o with "
            "a path in a writable directory, or -o - for standard output",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {visible_line(str(target))}")
    return 0


async def _prune(args: argparse.Namespace) -> int:
    try:
        age = parse_duration(args.older_than)
    except ValueError as exc:
        raise ConfigurationError(f"--older-than: {exc}") from exc
    cutoff = time.time() - age
    store = open_store(args.session_store, cwd=args.cwd)
    try:
        infos = await list_sessions(
            None if args.all else args.cwd, store=store, all_projects=args.all
        )
        old = [info for info in infos if info.updated_at < cutoff]
        for info in old:
            if not args.dry_run:
                await store.delete(info.session_id)
                remove_session_outputs(info.session_id)
            print(
                f"{'would delete' if args.dry_run else 'deleted'} {visible_line(info.session_id)}"
            )
    finally:
        await store.aclose()
    print(f"{len(old)} of {len(infos)} sessions older than {args.older_than}")
    return 0


def sessions_command(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        match args.command:
            case "list":
                return asyncio.run(_list(args))
            case "export":
                return asyncio.run(_export(args))
            case "prune":
                return asyncio.run(_prune(args))
            case _:
                return asyncio.run(_show(args))
    except ConfigurationError as exc:
        print(f"loopwright sessions: {visible(str(exc))}", file=sys.stderr)
        return 2
    except LoopwrightError as exc:
        print(f"loopwright sessions: {visible(str(exc))}", file=sys.stderr)
        return 1
