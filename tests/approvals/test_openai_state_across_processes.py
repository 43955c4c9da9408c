"""The OpenAI Agents layer: a RunState saved by one process is resumed by another."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HELPER = str(Path(__file__).with_name("openai_state_process.py"))


def _run(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, HELPER, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _paused(tmp_path: Path) -> Path:
    state = tmp_path / "state.json"
    state.write_text(_run("start", str(tmp_path))[-1])
    assert not (tmp_path / "refunds.log").exists()
    return state


def test_a_run_state_from_another_process_resumes_and_runs_the_approved_call(
    tmp_path: Path,
) -> None:
    state = _paused(tmp_path)
    assert "live_run" not in state.read_text()  # no in-memory handle: the session is stored

    output = _run("approve", str(tmp_path), str(state))

    assert output[0] == "Refund handled."
    assert output[1] == "refunded A1"  # what the model was sent back
    assert (tmp_path / "refunds.log").read_text() == "A1\n"


def test_a_rejection_from_another_process_sends_the_model_its_message(tmp_path: Path) -> None:
    state = _paused(tmp_path)

    output = _run("reject", str(tmp_path), str(state))

    assert output == ["Refund handled.", "refunds need a receipt"]
    assert not (tmp_path / "refunds.log").exists()


def test_a_state_resumed_twice_does_not_run_the_call_again(tmp_path: Path) -> None:
    state = _paused(tmp_path)
    _run("approve", str(tmp_path), str(state))

    again = subprocess.run(
        [sys.executable, HELPER, "approve", str(tmp_path), str(state)],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert again.returncode != 0 and "ApprovalError" in again.stderr
    assert (tmp_path / "refunds.log").read_text() == "A1\n"
