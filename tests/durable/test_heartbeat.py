"""Heartbeats: a worker sees who is late, and a worker declared dead stops itself."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)
import sqlalchemy as sa

from loopwright.durable.workers import (
    WORKERS_TABLE,
    Heartbeat,
    Timing,
    engine_for,
    list_workers,
)


def _engine(tmp_path: Path) -> sa.Engine:
    return engine_for(f"sqlite:///{tmp_path / 'workers.sqlite'}")


def _age(engine: sa.Engine, executor_id: str, seconds: float) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                f"UPDATE {WORKERS_TABLE} SET heartbeat_at = heartbeat_at - :s "
                "WHERE executor_id = :id"
            ),
            {"s": seconds, "id": executor_id},
        )


def test_a_worker_silent_past_the_expiry_is_listed_as_late(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    fenced = threading.Event()
    beat = Heartbeat(engine, "w1", "v1", Timing(takeover_seconds=600), fenced.set)
    beat.start()
    try:
        _age(engine, "w1", 500)
        (row,) = list_workers(engine)
        assert row.executor_id == "w1" and row.status == "alive"
        assert row.seconds_since_heartbeat > Timing(600).expiry_seconds
    finally:
        beat.stop()


def test_a_worker_whose_sessions_were_taken_over_fences_itself(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    fenced = threading.Event()
    beat = Heartbeat(engine, "w1", "v1", Timing(takeover_seconds=0.06), fenced.set)
    beat.start()
    try:
        with engine.begin() as conn:  # what a live worker's claim does to a late one
            conn.execute(
                sa.text(f"UPDATE {WORKERS_TABLE} SET status = 'gone', taken_over_by = 'w2'")
            )
        assert fenced.wait(timeout=10), "the fenced worker went on as if nothing happened"
    finally:
        beat.stop()


def test_a_worker_that_stops_leaves_its_sessions_to_the_others_at_once(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    beat = Heartbeat(engine, "w1", "v1", Timing(takeover_seconds=600), lambda: None)
    beat.start()
    beat.stop()
    (row,) = list_workers(_engine(tmp_path))
    assert row.status == "leaving"
