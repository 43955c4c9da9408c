"""``loopwright fleet``: tasks files checked before anything starts, a run on one machine
(SQLite) whose sessions are full sessions, status, and the progress line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "dbos", reason="FLEET TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

from loopwright import Options, run
from loopwright.cli.fleet import fleet_command
from loopwright.cli.fleet_view import progress_line
from loopwright.durable.fleet import Progress
from loopwright.testing import ScriptedModel, text

CLI = [sys.executable, "-m", "loopwright.cli.main", "fleet"]
SCRIPT = """\
- tool_call: {name: Bash, input: {command: "echo ran >> calls.log"}}
- text: finished
"""


def _tasks(tmp_path: Path, *lines: object) -> Path:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return tasks


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", "line 1: not JSON"),
        ({"task": "x"}, "unknown key(s) ['task']"),
        ({"prompt": ""}, '"prompt" must be a non-empty string'),
        ({"prompt": "x", "options": {"max_turn": 3}}, "['max_turn'] are not Options fields"),
        ({"prompt": "x", "cwd": "/a", "options": "pkg.mod:fn"}, "set cwd in the Options"),
    ],
    ids=["bad-json", "unknown-key", "empty-prompt", "unknown-option", "cwd-with-reference"],
)
def test_a_bad_task_line_is_refused_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: object, expected: str
) -> None:
    code = fleet_command(["run", str(_tasks(tmp_path, line)), "--db", "sqlite:///unused.db"])
    assert code == 2
    assert expected in capsys.readouterr().err


def test_a_task_id_used_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = _tasks(tmp_path, {"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"})
    assert fleet_command(["run", str(tasks)]) == 2
    assert "id 'a' is used twice; give every task its own id" in capsys.readouterr().err


def test_a_negative_worker_count_says_what_zero_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = _tasks(tmp_path, {"prompt": "x"})
    assert fleet_command(["run", str(tasks), "--workers", "-1"]) == 2
    assert "0: the workers run elsewhere" in capsys.readouterr().err


def test_status_of_a_database_without_workers_says_how_to_start_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    assert fleet_command(["status", "--db", db]) == 1
    assert f"loopwright fleet worker --db {db}" in capsys.readouterr().err


def test_status_of_a_database_that_is_down_fails_loudly_without_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = f"postgresql://fleet:s3cret@127.0.0.1:{port}/fleet"

    assert fleet_command(["status", "--db", db]) == 1

    err = capsys.readouterr().err
    assert "cannot read the fleet database" in err and "no fleet worker has run" not in err
    assert "s3cret" not in err and "database server is running" in err


def test_the_progress_line_counts_states_cost_and_eta() -> None:
    progress = Progress(total=4, started_at=0.0)
    progress.states.update({"a": "done", "b": "failed", "c": "running", "d": "queued"})
    progress.cost_usd = 0.125
    line = progress_line(progress, live_workers=1, started=2)
    assert line.startswith("[" + "#" * 12 + "." * 12 + "] 2/4")
    for part in ("done 1", "running 1", "failed 1", "$0.1250", "ETA", "workers 1/2 alive"):
        assert part in line


def test_a_fleet_run_on_one_machine_finishes_every_task_as_a_full_session(
    tmp_path: Path, isolated_loopwright_home: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    tasks = _tasks(tmp_path, *({"prompt": f"task {n}", "cwd": str(work)} for n in range(3)))
    results = tmp_path / "results.jsonl"
    flags = ["--workers", "1", "--model", f"scripted:{script}", "--out", str(results)]
    done = subprocess.run(
        [*CLI, "run", str(tasks), *flags, "--permission-mode", "bypassPermissions"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LOOPWRIGHT_HOME": str(isolated_loopwright_home)},
    )
    assert done.returncode == 0, done.stderr
    assert "3/3 · done 3 · running 0 · failed 0" in done.stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(line["task"] for line in lines) == [1, 2, 3]
    assert {line["result"]["result"] for line in lines} == {"finished"}
    assert (work / "calls.log").read_text().splitlines() == ["ran"] * 3
    # The transcript is in the default store like any session's: it can be resumed.
    resumed = asyncio.run(
        run(
            "and now?",
            Options(
                model=ScriptedModel([text("still here")]),
                resume=lines[0]["session_id"],
                cwd=work,
                setting_sources=[],
            ),
        )
    )
    assert resumed.result == "still here"
    status = subprocess.run(
        [*CLI, "status"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "LOOPWRIGHT_HOME": str(isolated_loopwright_home)},
    )
    assert status.returncode == 0, status.stderr
    assert "sessions: 3 (3 success)" in status.stdout
    attached = subprocess.run(
        [*CLI, "attach", lines[1]["session_id"], "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=work,
        env={**os.environ, "LOOPWRIGHT_HOME": str(isolated_loopwright_home)},
    )
    assert attached.returncode == 0, attached.stderr
    followed = [json.loads(line) for line in attached.stdout.splitlines()]
    assert [m["type"] for m in followed][-1] == "result"
    assert followed[-1]["result"] == "finished"


def test_a_database_url_of_another_kind_says_which_kinds_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert fleet_command(["worker", "--db", "mysql://db/fleet"]) == 2
    err = capsys.readouterr().err
    assert "postgresql://USER@HOST[:PORT]/DB" in err and "sqlite:///PATH" in err


def test_fleet_attach_follows_a_session_from_another_process_until_it_ends(
    tmp_path: Path,
) -> None:
    store = f"sqlite:{tmp_path / 'sessions.db'}"
    attach = subprocess.Popen(
        [*CLI, "attach", "followed", "--session-store", store, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    options = Options(
        model=ScriptedModel([text("seen from afar")]),
        setting_sources=[],
        session_store=store,
        session_id="followed",
    )
    result = asyncio.run(run("go", options))
    out, err = attach.communicate(timeout=60)
    assert attach.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["type"] for line in lines][-1] == "result"
    assert lines[-1]["result"] == "seen from afar" and lines[-1]["uuid"] == result.uuid
