"""A fleet session waits for approval without a worker; a worker killed meanwhile loses
nothing; an approval from another process wakes it on whichever worker is free."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)
psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is missing: pip install psycopg")

CLI = [sys.executable, "-m", "loopwright.cli.main"]
SESSION = "s-approve"


@pytest.fixture
def fleet_db(postgres_port: int) -> Iterator[str]:
    name = f"lw_approve_{uuid.uuid4().hex[:8]}"
    yield f"postgresql://postgres@127.0.0.1:{postgres_port}/{name}"
    admin_info = f"host=127.0.0.1 port={postgres_port} user=postgres dbname=postgres"
    with psycopg.connect(admin_info, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _environment(tmp_path: Path, db: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
        ),
        "FLEET_TEST_LOG": str(tmp_path / "calls.log"),
        "FLEET_TEST_STORE": db,
        "FLEET_TEST_CWD": str(tmp_path),
    }


def _wait(condition: Callable[[], bool], what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        time.sleep(0.05)


def _alive(db: str) -> int:
    try:
        with psycopg.connect(db) as conn:
            rows = conn.execute("SELECT status FROM loopwright_workers").fetchall()
    except psycopg.Error:
        return 0
    return sum(1 for row in rows if row[0] == "alive")


def _worker(db: str, env: dict[str, str], log: Path, alive_before: int) -> subprocess.Popen[bytes]:
    flags = ["--db", db, "--takeover-seconds", "3"]
    out = log.open("wb")
    worker = subprocess.Popen([*CLI, "fleet", "worker", *flags], env=env, stdout=out, stderr=out)
    _wait(lambda: _alive(db) > alive_before, "a worker registering", 60)
    return worker


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=120)


def _deferred_on_a_worker(db: str, env: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    first = _worker(db, env, tmp_path / "first.log", 0)
    tasks = tmp_path / "tasks.jsonl"
    task = {"id": SESSION, "prompt": "ship it", "options": "approval_tasks:approval_options"}
    tasks.write_text(json.dumps(task) + "\n")
    out = tmp_path / "results.jsonl"
    ran = _cli("fleet", "run", str(tasks), "--workers", "0", "--db", db, "--out", str(out), env=env)
    assert ran.returncode == 0, ran.stderr
    [result] = [json.loads(line) for line in out.read_text().splitlines()]
    assert result["subtype"] == "pending_approval"  # the workflow ended: nobody waits on it
    assert not (tmp_path / "calls.log").exists()
    return first


def test_a_waiting_fleet_session_survives_its_worker_and_any_free_worker_runs_the_approval(
    fleet_db: str, tmp_path: Path
) -> None:
    env = _environment(tmp_path, fleet_db)
    first = _deferred_on_a_worker(fleet_db, env, tmp_path)
    first.kill()  # SIGKILL while the session waits
    first.wait()

    status = _cli("fleet", "status", "--db", fleet_db, env=env)
    assert status.returncode == 0, status.stderr
    assert "waiting for approval: 1" in status.stdout and SESSION in status.stdout
    assert "deploy (" in status.stdout
    listed = _cli("approvals", "list", "--fleet", fleet_db, env=env)
    assert SESSION in listed.stdout and "deploy" in listed.stdout

    second = _worker(fleet_db, env, tmp_path / "second.log", 0)
    try:
        approved = _cli("approvals", "approve", SESSION, "--fleet", fleet_db, "--wait", env=env)
        assert approved.returncode == 0, approved.stderr
        assert approved.stdout.strip() == "deployed and done"
        [line] = (tmp_path / "calls.log").read_text().splitlines()
        assert line == f"{SESSION} prod {second.pid}"  # run by the worker that was free

        again = _cli("approvals", "approve", SESSION, "--fleet", fleet_db, env=env)
        assert again.returncode == 1 and "does not wait for approval" in again.stderr
        after = _cli("fleet", "status", "--db", fleet_db, env=env)
        assert "waiting for approval" not in after.stdout
    finally:
        second.kill()
        second.wait()


def test_two_fleet_approvers_racing_exactly_one_is_taken(fleet_db: str, tmp_path: Path) -> None:
    env = _environment(tmp_path, fleet_db)
    worker = _deferred_on_a_worker(fleet_db, env, tmp_path)
    try:
        command = [*CLI, "approvals", "approve", SESSION, "--fleet", fleet_db]
        racers = [
            subprocess.Popen(
                command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        outcomes = [(r.wait(timeout=120), r.communicate()[1]) for r in racers]
        codes = sorted(code for code, _ in outcomes)
        assert codes == [0, 1], outcomes
        loser = next(err for code, err in outcomes if code == 1)
        # Refused before anything ran, whichever moment the loser looked at the session.
        reasons = ("answered already", "does not wait", "moved on")
        assert any(reason in loser for reason in reasons) and "Traceback" not in loser, loser
        _wait(lambda: (tmp_path / "calls.log").exists(), "the approved call running", 60)
        status = _cli("fleet", "status", "--db", fleet_db, env=env)
        _wait(
            lambda: (
                "waiting for approval"
                not in _cli("fleet", "status", "--db", fleet_db, env=env).stdout
            ),
            "the session finishing",
            60,
        )
        assert status.returncode == 0
        assert len((tmp_path / "calls.log").read_text().splitlines()) == 1
    finally:
        worker.kill()
        worker.wait()
