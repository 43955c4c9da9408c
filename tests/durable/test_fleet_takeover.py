"""No worker's death loses a session: three workers on a real PostgreSQL, one killed.

Three ``loopwright fleet worker`` processes serve the queue; ``loopwright fleet run
--workers 0`` enqueues 30 sessions and follows them. Each session calls a tool three
times, and the tool appends a line to a shared log. Once the first worker has appended a
line, it is killed with SIGKILL; nobody restarts it. The survivors see its heartbeat
expire and take its sessions over.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)
psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is missing: pip install psycopg")

from loopwright.messages import AssistantMessage, Message, ToolResultBlock, UserMessage  # noqa: E402
from loopwright.stores import check_pairing, restore  # noqa: E402
from loopwright.stores.postgres import PostgresStore  # noqa: E402

SESSIONS = 30
SCRIPT = """\
- tool_call: {name: append_line, input: {tag: one}}
- tool_call: {name: append_line, input: {tag: two}}
- tool_call: {name: append_line, input: {tag: three}}
- text: done
"""
CLI = [sys.executable, "-m", "loopwright.cli.main", "fleet"]


@pytest.fixture
def fleet_db(postgres_port: int) -> Iterator[str]:
    """A fresh database for this fleet (DBOS creates it on first launch)."""
    name = f"lw_fleet_{uuid.uuid4().hex[:8]}"
    yield f"postgresql://postgres@127.0.0.1:{postgres_port}/{name}"
    admin_info = f"host=127.0.0.1 port={postgres_port} user=postgres dbname=postgres"
    with psycopg.connect(admin_info, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _environment(tmp_path: Path, db: str) -> dict[str, str]:
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
        ),
        "FLEET_TEST_LOG": str(tmp_path / "calls.log"),
        "FLEET_TEST_SCRIPT": str(script),
        "FLEET_TEST_STORE": db,
        "FLEET_TEST_CWD": str(tmp_path),
    }


def _alive_workers(db: str) -> list[tuple[str, int, str, str | None]]:
    try:
        with psycopg.connect(db) as conn:
            rows = conn.execute(
                "SELECT executor_id, pid, status, taken_over_by FROM loopwright_workers"
            ).fetchall()
    except psycopg.Error:  # the database or the table does not exist yet
        return []
    return [(str(r[0]), int(r[1]), str(r[2]), r[3]) for r in rows]


def _wait(condition: Callable[[], bool], what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        time.sleep(0.05)


def _start_workers(db: str, env: dict[str, str], tmp_path: Path) -> list[subprocess.Popen[bytes]]:
    workers = []
    for n in range(3):
        log = (tmp_path / f"worker{n}.err").open("wb")
        flags = ["--db", db, "--takeover-seconds", "3", "--sessions-per-worker", "10"]
        workers.append(subprocess.Popen([*CLI, "worker", *flags], env=env, stderr=log, stdout=log))
    _wait(lambda: len(_alive_workers(db)) == 3, "three workers registering", 60)
    return workers


def _tasks_file(tmp_path: Path) -> Path:
    tasks = tmp_path / "tasks.jsonl"
    lines = [
        json.dumps(
            {"id": f"s{n:02d}", "prompt": f"task {n}", "options": "fleet_tasks:fleet_options"}
        )
        for n in range(SESSIONS)
    ]
    tasks.write_text("\n".join(lines) + "\n")
    return tasks


def _log_lines(path: Path) -> list[tuple[str, str, int]]:
    if not path.exists():
        return []
    return [
        (parts[0], parts[1], int(parts[2]))
        for parts in (line.split() for line in path.read_text().splitlines())
    ]


def _run_fleet_and_kill_one(fleet_db: str, tmp_path: Path) -> dict[str, object]:
    env = _environment(tmp_path, fleet_db)
    workers = _start_workers(fleet_db, env, tmp_path)
    victim = workers[0]
    results = tmp_path / "results.jsonl"
    run_command = [*CLI, "run", str(_tasks_file(tmp_path)), "--workers", "0", "--db", fleet_db]
    follower = subprocess.Popen(
        [*run_command, "--out", str(results)], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        log = tmp_path / "calls.log"
        _wait(
            lambda: any(pid == victim.pid for _, _, pid in _log_lines(log)),
            "a tool call on the first worker",
            60,
        )
        victim.kill()  # SIGKILL: no goodbye, no last heartbeat
        victim.wait()
        _, follower_err = follower.communicate(timeout=120)
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
    return {
        "returncode": follower.returncode,
        "stderr": follower_err,
        "results": [json.loads(line) for line in results.read_text().splitlines()],
        "log": _log_lines(tmp_path / "calls.log"),
        "victim_pid": victim.pid,
        "workers": _alive_workers(fleet_db),
    }


def test_sessions_of_a_killed_worker_finish_on_the_others(fleet_db: str, tmp_path: Path) -> None:
    outcome = _run_fleet_and_kill_one(fleet_db, tmp_path)
    assert outcome["returncode"] == 0, outcome["stderr"]
    results = outcome["results"]
    assert isinstance(results, list) and len(results) == SESSIONS
    assert {r["subtype"] for r in results} == {"success"}, results
    assert sorted(r["session_id"] for r in results) == [f"s{n:02d}" for n in range(SESSIONS)]

    log = outcome["log"]
    assert isinstance(log, list)
    # No completed step ran twice, and the tool (not idempotent) never ran a second time.
    repeats = [key for key, count in Counter((s, tag) for s, tag, _ in log).items() if count > 1]
    assert repeats == []
    # The kill really cut sessions short: some were continued by another worker.
    pids_per_session: dict[str, set[int]] = {}
    for session, _, pid in log:
        pids_per_session.setdefault(session, set()).add(pid)
    moved = [
        s for s, pids in pids_per_session.items() if outcome["victim_pid"] in pids and len(pids) > 1
    ]
    assert moved, "no session was taken over mid-way"

    # The dead worker's id was retired, not reused: it is gone, taken over by a live worker.
    workers = outcome["workers"]
    assert isinstance(workers, list)
    dead = [w for w in workers if w[1] == outcome["victim_pid"]]
    assert len(dead) == 1 and dead[0][2] == "gone" and dead[0][3] is not None
    assert len({w[0] for w in workers}) == 3

    asyncio.run(_assert_transcripts_complete(fleet_db))


async def _assert_transcripts_complete(db: str) -> None:
    store = PostgresStore(db)
    try:
        for n in range(SESSIONS):
            session_id = f"s{n:02d}"
            messages: list[Message] = list(
                restore(await store.load(session_id), session_id=session_id).messages
            )
            assert check_pairing(messages) == [], session_id
            assistants = [m for m in messages if isinstance(m, AssistantMessage)]
            results = [
                b
                for m in messages
                if isinstance(m, UserMessage)
                for b in m.blocks
                if isinstance(b, ToolResultBlock)
            ]
            assert len(assistants) == 4 and len(results) == 3, session_id
            assert assistants[-1].text == "done"
    finally:
        await store.aclose()
