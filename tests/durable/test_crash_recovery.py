"""A durable session survives kill -9 in the middle of a tool call.

A worker process runs a scripted session whose first Bash call appends a line to a file
and whose second call blocks. The worker is killed with SIGKILL while the second call
runs; a new worker (with an id of its own) sees the dead one's heartbeat expire and takes
the session over: completed steps (the first model call, the first tool call, the second
model call) are replayed from the system database, and the interrupted Bash call, which
is not idempotent, is answered with an error result saying it may have run instead of
running a second time; the session finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

from loopwright.messages import Message, ToolResultBlock, UserMessage
from loopwright.stores import JSONLStore, check_pairing, restore

WORKER = Path(__file__).with_name("crash_worker.py")

# The first call moves the shell into sub/, which the second call depends on; the second
# blocks only the first time it runs: after recovery it finishes at once.
SCRIPT = """\
- tool_call:
    name: Bash
    input: {command: "echo once >> WORK/first.log; mkdir -p WORK/sub; cd WORK/sub"}
- tool_call:
    name: Bash
    input:
      command: >-
        pwd >> WORK/second.log;
        if [ ! -e WORK/blocked ]; then echo $$ > WORK/blocked; exec sleep 60; fi
- text: done
"""


def _worker(database_url: str, workdir: Path, script: Path, mode: str) -> list[str]:
    return [sys.executable, str(WORKER), database_url, str(workdir), str(script), "wf-1", mode]


def _wait_for(path: Path, process: subprocess.Popen[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        if process.poll() is not None:
            raise AssertionError(f"the worker exited early: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path.name} did not appear within {seconds} s")
        time.sleep(0.05)


def _crash_and_recover(
    database_url: str,
    tmp_path: Path,
    start_mode: str = "start",
    recover_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT.replace("WORK", str(workdir)))
    first = subprocess.Popen(
        _worker(database_url, workdir, script, start_mode),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(workdir / "blocked", first, seconds=30)
    finally:
        first.kill()  # SIGKILL: no cleanup, no chance to record anything more
        first.communicate()
    blocker = int((workdir / "blocked").read_text())
    try:
        os.kill(blocker, signal.SIGKILL)  # the tool's own process outlives the worker
    except ProcessLookupError:
        pass
    # Down for a while before it comes back: the session's duration must include the gap
    # (no event marks "long enough"; the gap is what is measured).
    time.sleep(3)
    recover_launched_at = time.time()
    recovered = subprocess.run(
        _worker(database_url, workdir, script, "recover"),
        env={**os.environ, **(recover_env or {})},
        capture_output=True,
        text=True,
        timeout=45,
    )
    assert recovered.returncode == 0, recovered.stderr
    result: dict[str, Any] = json.loads(recovered.stdout.strip().splitlines()[-1])
    # The session started before its first tool wrote first.log; its result was made after
    # the recovering worker started.
    result["at_least_ms"] = (recover_launched_at - (workdir / "first.log").stat().st_mtime) * 1000
    result["first_log"] = (workdir / "first.log").read_text().splitlines()
    second = workdir / "second.log"
    result["second_log"] = second.read_text().splitlines() if second.exists() else []
    result["sub"] = str(workdir / "sub")
    result["transcript"] = asyncio.run(_transcript("wf-1", workdir))
    return result


async def _transcript(session_id: str, workdir: Path) -> list[Message]:
    store = JSONLStore(cwd=workdir)
    try:
        return list(restore(await store.load(session_id), session_id=session_id).messages)
    finally:
        await store.aclose()


def _assert_resumed_at_last_step(outcome: dict[str, Any]) -> None:
    assert outcome["subtype"] == "success", outcome["errors"]
    assert outcome["result"] == "done"
    assert outcome["num_turns"] == 2
    # Counted from the first start, across the crash, not from the recovery.
    assert outcome["duration_ms"] >= outcome["at_least_ms"]
    # Completed before the crash: replayed from the record, never run again.
    assert outcome["first_log"] == ["once"]
    # Cut off by the crash, in the directory the replayed first call had left the shell
    # in: not run again (Bash is not idempotent).
    assert outcome["second_log"] == [outcome["sub"]]
    transcript = outcome["transcript"]
    assert check_pairing(transcript) == []
    results = [b for m in transcript if isinstance(m, UserMessage) for b in m.blocks]
    tool_results = [b for b in results if isinstance(b, ToolResultBlock)]
    assert len(tool_results) == 2
    assert tool_results[1].is_error
    assert "may or may not have finished" in str(tool_results[1].content)


def test_killed_session_resumes_on_sqlite(tmp_path: Path) -> None:
    outcome = _crash_and_recover(f"sqlite:///{tmp_path / 'dbos.sqlite'}", tmp_path)
    _assert_resumed_at_last_step(outcome)


def test_killed_session_resumes_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    outcome = _crash_and_recover(postgres_url, tmp_path)
    _assert_resumed_at_last_step(outcome)


def test_a_replay_against_other_options_is_refused_with_what_to_do(tmp_path: Path) -> None:
    outcome = _crash_and_recover(
        f"sqlite:///{tmp_path / 'dbos.sqlite'}",
        tmp_path,
        start_mode="versioned",
        recover_env={"DURABLE_TEST_VARIANT": "b"},  # the code building the options changed
    )
    assert outcome["subtype"] == "error_during_execution"
    message = outcome["errors"][0]
    assert "refusing to replay" in message
    assert "--replay-other-versions" in message
    assert outcome["first_log"] == ["once"]  # nothing ran again


def test_a_worker_told_to_replays_another_versions_session(tmp_path: Path) -> None:
    outcome = _crash_and_recover(
        f"sqlite:///{tmp_path / 'dbos.sqlite'}",
        tmp_path,
        start_mode="versioned",
        recover_env={"DURABLE_TEST_VARIANT": "b", "DURABLE_TEST_REPLAY_OTHER_VERSIONS": "1"},
    )
    _assert_resumed_at_last_step(outcome)
