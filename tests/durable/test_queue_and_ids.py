"""Sessions through the DBOS queue, and workflow IDs that make a session run once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

WORKER = Path(__file__).with_name("crash_worker.py")

SCRIPT = """\
- tool_call: {name: Bash, input: {command: "echo ran >> {{cwd}}/calls.log"}}
- text: finished
"""


NOTE_SCRIPT = """\
- tool_call: {name: take_note, input: {note: hello}}
- text: noted
"""


def _run_worker(tmp_path: Path, mode: str, script_text: str = SCRIPT) -> dict[str, Any]:
    workdir = tmp_path / "work"
    workdir.mkdir(exist_ok=True)
    script = tmp_path / "script.yaml"
    script.write_text(script_text)
    database_url = f"sqlite:///{tmp_path / 'dbos.sqlite'}"
    done = subprocess.run(
        [sys.executable, str(WORKER), database_url, str(workdir), str(script), "wf-q", mode],
        capture_output=True,
        text=True,
        timeout=45,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_queued_session_runs_on_a_worker(tmp_path: Path) -> None:
    result = _run_worker(tmp_path, "queue")
    assert result["subtype"] == "success"
    assert result["result"] == "finished"
    assert (tmp_path / "work" / "calls.log").read_text().splitlines() == ["ran"]


def test_starting_a_finished_session_again_returns_its_result(tmp_path: Path) -> None:
    first = _run_worker(tmp_path, "start")
    again = _run_worker(tmp_path, "start")
    assert again["uuid"] == first["uuid"]
    assert (tmp_path / "work" / "calls.log").read_text().splitlines() == ["ran"]


def test_options_named_by_reference_carry_a_tool_function(tmp_path: Path) -> None:
    result = _run_worker(tmp_path, "reference", NOTE_SCRIPT)
    assert result["subtype"] == "success"
    assert (tmp_path / "work" / "notes.log").read_text().splitlines() == ["hello"]
