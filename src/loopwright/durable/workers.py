"""Workers that watch each other: heartbeats in the database, and takeover of the dead.

Every worker has a row in ``loopwright_workers`` (in the DBOS system database) and
refreshes its ``heartbeat_at`` from a thread of its own, so a busy event loop does not
look like a dead process. On each beat it also looks for workers of its application
version whose heartbeat is older than the expiry (or that said goodbye): it claims one
with a conditional UPDATE (exactly one live worker wins) and asks DBOS to recover that
executor's pending workflows, which puts them back on their queue for any live worker to
dequeue. Nobody reuses the dead worker's executor id.

A worker that finds its own row claimed (it stalled past the expiry, and its sessions
are being run elsewhere) must not go on writing steps for them: it is fenced off, by
default by ending the process at once.

Times come from the database's clock, so machines with skewed clocks agree on who is late.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from dbos import DBOS

DEFAULT_TAKEOVER_SECONDS = 30.0
WORKERS_TABLE = "loopwright_workers"
EXIT_FENCED = 75  # EX_TEMPFAIL: a supervisor may start a fresh worker

_log = logging.getLogger("loopwright.durable")

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {WORKERS_TABLE} (
    executor_id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    app_version TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    heartbeat_at DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL,
    taken_over_by TEXT
)
"""


@dataclass(frozen=True, slots=True)
class Timing:
    """Derived from how soon a dead worker's sessions must be taken over: silence for
    two thirds of that means death, and beats (which also look for the dead) come six
    times as often, so a takeover happens within the budget."""

    takeover_seconds: float = DEFAULT_TAKEOVER_SECONDS

    @property
    def expiry_seconds(self) -> float:
        return self.takeover_seconds * 2 / 3

    @property
    def beat_seconds(self) -> float:
        return self.takeover_seconds / 6


@dataclass(frozen=True, slots=True)
class WorkerRow:
    executor_id: str
    host: str
    pid: int
    app_version: str
    seconds_since_heartbeat: float
    status: str
    taken_over_by: str | None


def new_executor_id() -> str:
    """Unique per process start: a restarted worker is a new worker."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def engine_for(database_url: str) -> sa.Engine:
    """A small SQLAlchemy engine on the DBOS system database (psycopg for PostgreSQL)."""
    url = database_url
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix) :]
    if url.startswith("sqlite"):
        return sa.create_engine(url, connect_args={"timeout": 30})
    return sa.create_engine(url, pool_size=1, max_overflow=1, pool_pre_ping=True)


def _now_sql(engine: sa.Engine) -> str:
    if engine.dialect.name == "sqlite":
        return "((julianday('now') - 2440587.5) * 86400.0)"
    return "extract(epoch from clock_timestamp())"


def create_workers_table(engine: sa.Engine) -> None:
    """Create the table; on PostgreSQL under an advisory lock (concurrent workers on an
    empty database would race on CREATE TABLE IF NOT EXISTS)."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": _SCHEMA})
        conn.execute(sa.text(_SCHEMA))


def list_workers(engine: sa.Engine) -> list[WorkerRow]:
    now = _now_sql(engine)
    sql = (
        f"SELECT executor_id, host, pid, app_version, {now} - heartbeat_at, status, "
        f"taken_over_by FROM {WORKERS_TABLE} ORDER BY started_at"
    )
    with engine.connect() as conn:
        rows = conn.execute(sa.text(sql)).fetchall()
    return [
        WorkerRow(str(r[0]), str(r[1]), int(r[2]), str(r[3]), float(r[4]), str(r[5]), r[6])
        for r in rows
    ]


class Heartbeat:
    """This worker's row, kept fresh by a daemon thread that also takes over the dead."""

    def __init__(
        self,
        engine: sa.Engine,
        executor_id: str,
        app_version: str,
        timing: Timing,
        on_fenced: Callable[[], None] | None = None,
    ) -> None:
        self._engine = engine
        self.executor_id = executor_id
        self._app_version = app_version
        self._timing = timing
        self._on_fenced = on_fenced or _exit_fenced
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._now = _now_sql(engine)

    def start(self) -> None:
        create_workers_table(self._engine)
        with self._engine.begin() as conn:
            conn.execute(
                sa.text(
                    f"INSERT INTO {WORKERS_TABLE} (executor_id, host, pid, app_version, "
                    f"started_at, heartbeat_at, status) VALUES (:id, :host, :pid, :version, "
                    f"{self._now}, {self._now}, 'alive')"
                ),
                {
                    "id": self.executor_id,
                    "host": socket.gethostname(),
                    "pid": os.getpid(),
                    "version": self._app_version,
                },
            )
        self._thread = threading.Thread(target=self._run, name="loopwright-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Say goodbye: live workers take over this one's unfinished sessions at once."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with self._engine.begin() as conn:
            conn.execute(
                sa.text(
                    f"UPDATE {WORKERS_TABLE} SET status = 'leaving' "
                    "WHERE executor_id = :id AND status = 'alive'"
                ),
                {"id": self.executor_id},
            )
        self._engine.dispose()

    def _run(self) -> None:
        while not self._stop.wait(self._timing.beat_seconds):
            try:
                if not self.beat():
                    self._on_fenced()
                    return
                self.take_over_the_dead()
            except Exception:  # a database blip: the next beat tries again
                _log.warning("heartbeat of %s failed", self.executor_id, exc_info=True)

    def beat(self) -> bool:
        """Refresh this worker's heartbeat; False if another worker declared it dead."""
        with self._engine.begin() as conn:
            updated = conn.execute(
                sa.text(
                    f"UPDATE {WORKERS_TABLE} SET heartbeat_at = {self._now} "
                    "WHERE executor_id = :id AND status = 'alive'"
                ),
                {"id": self.executor_id},
            )
        return updated.rowcount == 1

    def take_over_the_dead(self) -> list[str]:
        """Claim every expired worker of this version and recover its sessions."""
        taken: list[str] = []
        for dead in self._expired():
            if self._claim(dead):
                try:
                    DBOS._recover_pending_workflows([dead])  # pyright: ignore[reportPrivateUsage]
                except Exception:
                    self._unclaim(dead)  # let a later beat (or another worker) retry
                    raise
                _log.warning("worker %s took over the sessions of %s", self.executor_id, dead)
                taken.append(dead)
        return taken

    def _expired(self) -> list[str]:
        with self._engine.connect() as conn:
            rows = conn.execute(sa.text(self._expired_sql()), self._expired_args()).fetchall()
        return [str(row[0]) for row in rows]

    def _expired_sql(self) -> str:
        return (
            f"SELECT executor_id FROM {WORKERS_TABLE} WHERE executor_id <> :me "
            "AND app_version = :version AND (status = 'leaving' OR "
            f"(status = 'alive' AND heartbeat_at < {self._now} - :expiry))"
        )

    def _expired_args(self) -> dict[str, Any]:
        return {
            "me": self.executor_id,
            "version": self._app_version,
            "expiry": self._timing.expiry_seconds,
        }

    def _claim(self, executor_id: str) -> bool:
        sql = (
            f"UPDATE {WORKERS_TABLE} SET status = 'gone', taken_over_by = :me "
            "WHERE executor_id = :dead AND app_version = :version AND (status = 'leaving' OR "
            f"(status = 'alive' AND heartbeat_at < {self._now} - :expiry))"
        )
        with self._engine.begin() as conn:
            claimed = conn.execute(sa.text(sql), {**self._expired_args(), "dead": executor_id})
        return claimed.rowcount == 1

    def _unclaim(self, executor_id: str) -> None:
        with self._engine.begin() as conn:
            conn.execute(
                sa.text(
                    f"UPDATE {WORKERS_TABLE} SET status = 'leaving', taken_over_by = NULL "
                    "WHERE executor_id = :dead AND taken_over_by = :me"
                ),
                {"dead": executor_id, "me": self.executor_id},
            )


def _exit_fenced() -> None:
    _log.critical(
        "this worker was silent past the takeover expiry and its sessions went to other "
        "workers; exiting so that no session runs twice (start a fresh worker)"
    )
    os._exit(EXIT_FENCED)
