"""Every child process dies with the run: the CLI stopped by SIGTERM, SIGINT or SIGHUP in
the middle of a Bash call (with a background shell running too) ends with an interrupted
result line and an exit code that names the signal, and leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml

CLI = [sys.executable, "-m", "loopwright.cli.main"]
MARKER_VARIABLE = "LOOPWRIGHT_TEST_PROCESS_MARKER"


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``marker``: the descendants
    of the process we started, wherever they were re-parented."""
    found: list[int] = []
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def none_left(marker: str, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)  # killed processes vanish asynchronously; poll with a deadline
    return left


def wait_for(path: Path, process: subprocess.Popen[str], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def start_cli(tmp_path: Path, output_format: str) -> tuple[subprocess.Popen[str], str, Path]:
    started = tmp_path / "started"
    script = tmp_path / "script.yaml"
    steps = [
        {
            "tool_call": {
                "name": "Bash",
                "input": {"command": "sleep 300", "run_in_background": True},
            }
        },
        {"tool_call": {"name": "Bash", "input": {"command": f"touch {started}; sleep 300"}}},
        {"text": "never reached"},
    ]
    script.write_text(yaml.safe_dump(steps))
    marker = uuid.uuid4().hex
    process = subprocess.Popen(
        [*CLI, "-p", "run the long thing", "--model", f"scripted:{script}",
         "--permission-mode", "bypassPermissions", "--output-format", output_format],
        cwd=tmp_path,
        env={**os.environ, MARKER_VARIABLE: marker},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    wait_for(started, process)
    return process, marker, started


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]
)
def test_a_stop_signal_ends_the_run_with_a_result_line_and_no_process_left(
    tmp_path: Path, signum: int, code: int
) -> None:
    process, marker, _ = start_cli(tmp_path, "stream-json")
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert process.returncode == code, err
    last = json.loads(out.strip().splitlines()[-1])
    assert last["type"] == "result" and last["subtype"] == "interrupted", last
    assert none_left(marker) == []


def test_json_output_stopped_by_sigterm_still_prints_its_result(tmp_path: Path) -> None:
    process, marker, _ = start_cli(tmp_path, "json")
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert json.loads(out.strip().splitlines()[-1])["subtype"] == "interrupted"
    assert none_left(marker) == []


def test_the_transcript_of_a_stopped_run_closes_its_open_call(tmp_path: Path) -> None:
    process, marker, _ = start_cli(tmp_path, "stream-json")
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=30)
    session_id = json.loads(out.strip().splitlines()[-1])["session_id"]
    shown = subprocess.run(
        [*CLI, "sessions", "show", session_id, "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    lines = [json.loads(line) for line in shown.stdout.splitlines()]
    calls = {b["id"] for m in lines if m["type"] == "assistant" for b in m["content"]
             if b.get("type") == "tool_use"}  # fmt: skip
    answered = {b["tool_use_id"] for m in lines if m["type"] == "user"
                and isinstance(m["content"], list) for b in m["content"]
                if b.get("type") == "tool_result"}  # fmt: skip
    assert calls and calls <= answered
    assert none_left(marker) == []
