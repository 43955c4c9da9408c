"""What ``loopwright fleet`` prints: the progress line of a run and ``fleet status``."""

from __future__ import annotations

import re
import sys
from collections import Counter

from loopwright.cli.terminal_text import visible_line
from loopwright.durable.fleet import Progress
from loopwright.durable.session import SESSION_WORKFLOW_NAME
from loopwright.durable.versioning import application_version
from loopwright.durable.workers import WorkerRow, engine_for, list_workers

BAR_WIDTH = 24
EXIT_UNREACHABLE = 1


def progress_line(progress: Progress, *, live_workers: int, started: int) -> str:
    """``[#####.....] 12/30 · done 10 · running 3 · failed 2 · $0.0412 · ETA 0:41``"""
    finished = progress.finished
    filled = BAR_WIDTH * finished // max(progress.total, 1)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    eta = progress.eta_seconds()
    parts = [
        f"[{bar}] {finished}/{progress.total}",
        f"done {progress.count('done')}",
        f"running {progress.count('running')}",
        f"failed {progress.count('failed')}",
        f"${progress.cost_usd:.4f}",
        f"ETA {_clock(eta)}" if eta is not None else "ETA --:--",
    ]
    if started and live_workers < started:
        parts.append(f"workers {live_workers}/{started} alive")
    return " · ".join(parts)


def _clock(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def print_status(db: str) -> int:
    """Workers (with their heartbeat age) and session counts per status and version."""
    engine = engine_for(db)
    try:
        workers = list_workers(engine)
    except Exception as exc:  # no table yet, or no database at all
        shown = engine.url.render_as_string(hide_password=True)
        engine.dispose()
        print(status_failure(shown, exc), file=sys.stderr)
        return EXIT_UNREACHABLE
    engine.dispose()
    _print_workers(workers)
    _print_sessions(db)
    return 0


def status_failure(db: str, exc: BaseException) -> str:
    """Why ``fleet status`` has nothing to show: a database no worker has used yet, or one
    it cannot reach at all (which must not read as an empty fleet)."""
    detail = visible_line((str(exc).strip().splitlines() or [type(exc).__name__])[0])
    if re.search(r"no such table|does not exist|UndefinedTable", f"{type(exc).__name__} {exc}"):
        return (
            f"no fleet worker has run on {db} yet; start one with "
            f"`loopwright fleet worker --db {db}` or run tasks with `loopwright fleet run`"
        )
    return (
        f"cannot read the fleet database {db}: {detail[:300]}; check the --db URL and that "
        "the database server is running and reachable"
    )


def _print_workers(workers: list[WorkerRow]) -> None:
    alive = [w for w in workers if w.status == "alive"]
    print(f"workers: {len(alive)} alive, {len(workers) - len(alive)} gone")
    for worker in workers:
        taken = (
            f" (taken over by {visible_line(worker.taken_over_by)})" if worker.taken_over_by else ""
        )
        print(
            f"  {visible_line(worker.executor_id)}  {visible_line(worker.status):<7} heartbeat "
            f"{worker.seconds_since_heartbeat:5.1f}s ago  {visible_line(worker.app_version)}{taken}"
        )


def _print_sessions(db: str) -> None:
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=db)
    try:
        sessions = client.list_workflows(
            name=SESSION_WORKFLOW_NAME, load_input=False, load_output=False
        )
    finally:
        client.destroy()
    by_status = Counter(s.status for s in sessions)
    summary = ", ".join(
        f"{count} {visible_line(str(status).lower())}"
        for status, count in sorted(by_status.items())
    )
    print(f"sessions: {len(sessions)}" + (f" ({summary})" if summary else ""))
    mine = application_version()
    waiting = Counter(
        s.app_version for s in sessions if s.status in ("PENDING", "ENQUEUED") and s.app_version
    )
    for version, count in sorted(waiting.items()):
        if version != mine:
            print(
                f"  {count} unfinished session(s) belong to {visible_line(version)}; workers of "
                f"{mine} leave them alone: start a worker running {visible_line(version)} to "
                "finish them"
            )
