"""``loopwright fleet run|worker|status``: many durable sessions on many workers.

``run`` reads a tasks file, starts N worker processes on this machine (none with
``--workers 0``: the workers run elsewhere), enqueues one durable session per task, and
follows them with a progress line until every one has finished, writing one JSON line per
task. ``worker`` serves the queue until stopped (add them from other machines with a
PostgreSQL ``--db``). ``status`` shows the workers and the sessions of a database;
``attach`` follows one session live from its transcript, from any machine that can read
the store.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from loopwright.cli.agent_arguments import PERMISSION_MODE_CHOICES, split_rules
from loopwright.cli.fleet_view import print_status, progress_line
from loopwright.cli.render import Renderer, to_json_line
from loopwright.cli.terminal_text import visible
from loopwright.durable import follow_session, launch_durable, shutdown_durable
from loopwright.durable.fleet import (
    FleetTask,
    Progress,
    enqueue_tasks,
    poll,
    read_tasks,
    run_id_for,
)
from loopwright.durable.workers import engine_for, list_workers
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.options import Options
from loopwright.private_files import create_private_file
from loopwright.stores import loopwright_home, open_store

EXIT_USAGE = 2
EXIT_SOME_FAILED = 1
POLL_SECONDS = 0.5
APPROVAL_SWEEP_SECONDS = 5.0  # how often a worker denies calls past their approval deadline
WORKER_STOP_SECONDS = 15.0
DB_SCHEMES = ("postgresql://", "postgres://", "sqlite:///")


def default_db() -> str:
    home = loopwright_home()
    create_private_file(home / "fleet.sqlite")  # holds every task's prompt and result
    return f"sqlite:///{home / 'fleet.sqlite'}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright fleet",
        description="Run many sessions as durable workflows on many workers.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run every task of a JSONL file and follow them")
    run.add_argument("tasks", type=Path, help="one JSON task per line: prompt, cwd, options, id")
    run.add_argument("--workers", type=int, default=2, help="worker processes to start here")
    run.add_argument("--out", type=Path, help="write one JSON result line per task here")
    run.add_argument("--run-id", help="session id prefix (default: file name + content hash)")
    _add_database(run)
    _add_worker_flags(run)
    run.add_argument("--model", help="anthropic:ID, openai:ID, openai-chat:ID or scripted:FILE")
    run.add_argument("--max-turns", type=int)
    run.add_argument("--max-budget-usd", type=float, help="per session")
    run.add_argument("--tools", help="comma-separated built-in tool names the model sees")
    run.add_argument("--allowed-tools", help="comma-separated permission rules to approve")
    run.add_argument("--permission-mode", choices=PERMISSION_MODE_CHOICES)
    run.add_argument(
        "--session-store",
        help="where transcripts go (default: the --db database when it is PostgreSQL, "
        "else the JSONL store)",
    )
    worker = commands.add_parser("worker", help="serve the session queue until stopped")
    _add_database(worker)
    _add_worker_flags(worker)
    status = commands.add_parser("status", help="workers and sessions of a database")
    _add_database(status)
    attach = commands.add_parser("attach", help="follow one session live until it ends")
    attach.add_argument("session_id")
    _add_database(attach)
    attach.add_argument("--session-store", help="where its transcript is (default as in run)")
    attach.add_argument("--json", action="store_true", help="one JSON message per line")
    return parser


def _add_database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", help="postgresql://… (many machines) or sqlite:///PATH (default: one machine)"
    )


def _add_worker_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions-per-worker", type=int, default=100)
    parser.add_argument(
        "--takeover-seconds",
        type=float,
        default=30.0,
        help="a dead worker's sessions move to a live one within this time",
    )
    parser.add_argument(
        "--idempotent-tools", help="comma-separated tools safe to run again after a crash"
    )
    parser.add_argument(
        "--replay-other-versions",
        action="store_true",
        help="replay sessions recorded by another loopwright version or other options",
    )


def fleet_command(arguments: Sequence[str]) -> int:
    args = _parser().parse_args(list(arguments))
    try:
        _check(args)
        if args.command == "worker":
            return asyncio.run(_serve(args))
        if args.command == "status":
            return print_status(args.db or default_db())
        if args.command == "attach":
            return asyncio.run(_attach(args))
        return asyncio.run(_run(args))
    except ConfigurationError as exc:
        print(f"loopwright fleet: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except (LoopwrightError, ImportError) as exc:
        print(f"loopwright fleet: {visible(str(exc))}", file=sys.stderr)
        return EXIT_SOME_FAILED
    except KeyboardInterrupt:
        return 130


def _check(args: argparse.Namespace) -> None:
    if getattr(args, "workers", 0) < 0:
        raise ConfigurationError("--workers must be 0 or more (0: the workers run elsewhere)")
    if getattr(args, "takeover_seconds", 1.0) <= 0:
        raise ConfigurationError("--takeover-seconds must be a positive number of seconds")
    if getattr(args, "sessions_per_worker", 1) < 1:
        raise ConfigurationError("--sessions-per-worker must be 1 or more")
    if args.db is not None and not args.db.startswith(DB_SCHEMES):
        raise ConfigurationError(
            f"--db {args.db!r} is not a database URL: use postgresql://USER@HOST[:PORT]/DB "
            "(workers on many machines) or sqlite:///PATH (one machine)"
        )


async def _launch(db: str, **settings: Any) -> None:
    """launch_durable, with a database that cannot be used reported as what to check."""
    try:
        await launch_durable(db, **settings)
    except Exception as exc:
        raise LoopwrightError(
            f"cannot use {db} for the fleet ({type(exc).__name__}: {exc}); check the --db "
            "URL and that the database server is running"
        ) from exc


def _worker_flags(args: argparse.Namespace) -> list[str]:
    flags = [
        "--sessions-per-worker",
        str(args.sessions_per_worker),
        "--takeover-seconds",
        str(args.takeover_seconds),
    ]
    if args.idempotent_tools:
        flags += ["--idempotent-tools", args.idempotent_tools]
    if args.replay_other_versions:
        flags.append("--replay-other-versions")
    return flags


async def _serve(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await _launch(
        db,
        sessions_per_worker=args.sessions_per_worker,
        takeover_seconds=args.takeover_seconds,
        idempotent_tools=split_rules(args.idempotent_tools),
        replay_other_versions=args.replay_other_versions,
    )
    print(f"loopwright fleet worker serving {db}; stop with Ctrl-C", file=sys.stderr, flush=True)
    sweeper = asyncio.create_task(_deny_overdue_approvals(db))
    try:
        await stop.wait()
    finally:
        sweeper.cancel()
        shutdown_durable()
    return 0


async def _deny_overdue_approvals(db: str) -> None:
    """Sessions waiting past their approval deadline go on, their calls denied."""
    from loopwright.durable.approvals import deny_overdue

    while True:
        await asyncio.sleep(APPROVAL_SWEEP_SECONDS)
        try:
            await deny_overdue(db)
        except Exception as exc:  # a sweep that fails is retried; the worker serves on
            print(f"loopwright fleet worker: approval deadlines: {exc}", file=sys.stderr)


def _session_store(args: argparse.Namespace, db: str) -> str | None:
    if args.session_store is None and db.startswith(("postgresql://", "postgres://")):
        return db  # every worker, on any machine, writes where the others can read
    return args.session_store


async def _attach(args: argparse.Namespace) -> int:
    store = open_store(_session_store(args, args.db or default_db()))
    renderer = Renderer(show_prompt=True)
    result: ResultMessage | None = None
    try:
        async for message in follow_session(args.session_id, store):
            if args.json:
                print(to_json_line(message), flush=True)
            else:
                renderer.show(message)
            result = message if isinstance(message, ResultMessage) else result
    finally:
        await store.aclose()
    return EXIT_SOME_FAILED if result is None or result.is_error else 0


def _base_options(args: argparse.Namespace, db: str) -> Options:
    store = _session_store(args, db)
    return Options(
        model=args.model,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        tools=split_rules(args.tools) if args.tools else None,
        allowed_tools=split_rules(args.allowed_tools),
        permission_mode=args.permission_mode,
        session_store=store,
    )


async def _run(args: argparse.Namespace) -> int:
    db = args.db or default_db()
    run_id = args.run_id or (run_id_for(args.tasks) if args.tasks.is_file() else "fleet")
    tasks = read_tasks(args.tasks, _base_options(args, db), run_id)
    # This process only enqueues and follows; it runs no session itself.
    await _launch(db, serve_queue=False, heartbeat=False)
    with ExitStack() as stack:
        out = stack.enter_context(args.out.open("w")) if args.out else None
        workers = [_start_worker(db, args) for _ in range(args.workers)]
        try:
            if not workers:
                _warn_without_workers(db)
            return await _follow(tasks, out, workers)
        finally:
            _stop_workers(workers)
            shutdown_durable()


Worker = subprocess.Popen[bytes]


async def _follow(tasks: list[FleetTask], out: IO[str] | None, workers: list[Worker]) -> int:
    await enqueue_tasks(tasks)
    progress = Progress(total=len(tasks))
    reported: set[str] = set()
    failed = 0
    interactive = sys.stderr.isatty()
    last_line = ""
    while len(reported) < len(tasks):
        for outcome in await poll(tasks, progress, reported):
            failed += not outcome.succeeded
            if out is not None:
                out.write(outcome.to_json_line() + "\n")
                out.flush()
        line = progress_line(progress, live_workers=_alive(workers), started=len(workers))
        if line != last_line:
            end = "" if interactive else "\n"
            print(("\r" if interactive else "") + line, end=end, file=sys.stderr, flush=True)
            last_line = line
        if workers and not _alive(workers) and len(reported) < len(tasks):
            print(
                "\nloopwright fleet: every worker started here has exited (their errors are "
                "above); the unfinished sessions stay queued: start workers with "
                "`loopwright fleet worker` and run this command again to follow them",
                file=sys.stderr,
            )
            return EXIT_SOME_FAILED
        if len(reported) < len(tasks):
            await asyncio.sleep(POLL_SECONDS)
    if interactive:
        print(file=sys.stderr)
    return EXIT_SOME_FAILED if failed else 0


def _warn_without_workers(db: str) -> None:
    engine = engine_for(db)
    try:
        alive = [w for w in list_workers(engine) if w.status == "alive"]
    except Exception:  # no worker ever ran on this database
        alive = []
    finally:
        engine.dispose()
    if not alive:
        print(
            f"loopwright fleet: no live worker on {db} yet; the tasks wait in the queue until "
            f"one starts: `loopwright fleet worker --db {db}`",
            file=sys.stderr,
        )


def _start_worker(db: str, args: argparse.Namespace) -> Worker:
    command = [sys.executable, "-m", "loopwright.cli.main", "fleet", "worker", "--db", db]
    return subprocess.Popen([*command, *_worker_flags(args)], stdin=subprocess.DEVNULL)


def _alive(workers: list[Worker]) -> int:
    return sum(1 for w in workers if w.poll() is None)


def _stop_workers(workers: list[Worker]) -> None:
    running = [w for w in workers if w.poll() is None]
    for worker in running:
        worker.send_signal(signal.SIGTERM)
    for worker in running:
        try:
            worker.wait(timeout=WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
