"""``loopwright loop``: rerun the agent in one session until a check passes, within bounds."""

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from error_advice import assert_says_what_to_do
from loopwright.cli.durations import parse_duration
from loopwright.cli.outer_loop import LoopPlan, OuterLoop
from loopwright.messages import Usage
from loopwright.models.scripted import ScriptedModel, text
from loopwright.options import Options

CLI = [sys.executable, "-m", "loopwright.cli.main"]


def write_script(path: Path, steps: list[dict[str, object]]) -> str:
    path.write_text(yaml.safe_dump(steps))
    return f"scripted:{path}"


def run_loop(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL")
    }
    return subprocess.run(
        [*CLI, "loop", *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=60
    )


def session_prompts(session_id: str, cwd: Path) -> list[str]:
    shown = subprocess.run(
        [*CLI, "sessions", "show", session_id, "--json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    messages = [json.loads(line) for line in shown.stdout.splitlines()]
    return [m["content"] for m in messages if m["type"] == "user" and isinstance(m["content"], str)]


def test_second_iteration_makes_the_check_pass_in_the_same_session(tmp_path: Path) -> None:
    model = write_script(
        tmp_path / "s.yaml",
        [
            {"text": "I looked around but did nothing yet."},
            {"tool_call": {"name": "Bash", "input": {"command": "touch done.txt"}}},
            {"text": "Created done.txt."},
        ],
    )
    done = run_loop(
        "make done.txt exist",
        "--until",
        "test -f done.txt",
        "--model",
        model,
        "--permission-mode",
        "bypassPermissions",
        "--session-id",
        "outer-loop-session",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✗ check failed (exit 1)" in done.stdout
    assert "✓ check passed after 2 run(s)" in done.stdout
    assert (tmp_path / "done.txt").exists()
    # Both runs are one conversation; the second prompt carries the check's verdict.
    first, second = session_prompts("outer-loop-session", tmp_path)
    assert first == "make done.txt exist"
    assert second.startswith("make done.txt exist")
    assert "`test -f done.txt` still fails with exit code 1" in second


def test_gives_up_after_max_iterations_with_a_failing_exit(tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "try 1"}, {"text": "try 2"}])
    done = run_loop(
        "never works",
        "--until",
        "echo still-broken; exit 3",
        "--max-iterations",
        "2",
        "--model",
        model,
        "--session-id",
        "hopeless",
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert "the check still fails after 2 run(s)" in done.stdout
    assert "still-broken" in session_prompts("hopeless", tmp_path)[1]


def test_every_reruns_on_a_schedule_bounded_by_iterations(tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "run one"}, {"text": "run two"}])
    done = run_loop(
        "report status",
        "--every",
        "0.01s",
        "--max-iterations",
        "2",
        "--model",
        model,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run one" in done.stdout and "run two" in done.stdout
    assert "next run in 0.01 s" in done.stdout


async def test_the_budget_covers_all_iterations(tmp_path: Path) -> None:
    # A priced model name: each call below costs $2 (a million input tokens of Sonnet 5.5).
    costly = Usage(input_tokens=1_000_000)
    model = ScriptedModel(
        [text("one", usage=costly), text("two", usage=costly), text("three", usage=costly)],
        name="claude-sonnet-5-5",
    )
    plan = LoopPlan(
        prompt="spend",
        until="false",
        max_iterations=10,
        max_budget_usd=3.0,
        every_seconds=None,
        check_timeout=10,
    )
    output = io.StringIO()
    options = Options(model=model, cwd=tmp_path, tools=[], setting_sources=[])
    outer = OuterLoop(plan, options, Console(file=output, width=100))
    assert await outer.run() == 1
    # Run 1 spends $2; run 2 may spend only the $1 left, stops at $2 over; no run 3.
    assert model.remaining == 1
    assert "error_max_budget_usd" in output.getvalue()
    assert "budget of $3.0000 spent" in output.getvalue()


def test_loop_needs_a_stop_condition_and_persistence(tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "x"}])
    no_stop = run_loop("x", "--model", model, cwd=tmp_path)
    assert no_stop.returncode == 2 and "--until" in no_stop.stderr
    assert_says_what_to_do(no_stop.stderr, "say when to stop with --until CMD")
    unpersisted = run_loop(
        "x", "--until", "true", "--no-session-persistence", "--model", model, cwd=tmp_path
    )
    assert unpersisted.returncode == 2 and "session persistence" in unpersisted.stderr
    assert_says_what_to_do(unpersisted.stderr, "drop --no-session-persistence")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("15m", 900), ("1h", 3600), ("1h30m", 5400), ("1d", 86400)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "1x", "0s", "-5m", "1h banana"])
def test_bad_durations_say_how_to_write_one(text: str) -> None:
    with pytest.raises(ValueError, match=r"write e\.g\. 90s, 15m, 1h|must be longer than zero"):
        parse_duration(text)


def test_a_check_command_that_does_not_exist_stops_the_loop_at_once(tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "try 1"}, {"text": "try 2"}])
    done = run_loop(
        "make it pass",
        "--until",
        "no-such-check-command-xyz",
        "--max-iterations",
        "2",
        "--model",
        model,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert "found no such command (exit 127)" in said
    assert "Fix the --until command" in said
    assert "iteration 2" not in done.stdout  # the second run was not wasted on it


def _live_processes_running(marker: str) -> list[int]:
    """Processes (zombies aside) whose command line contains ``marker``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_a_check_that_times_out_leaves_no_process_behind(tmp_path: Path) -> None:
    from loopwright.cli.outer_loop import run_check

    marker = f"{300 + os.getpid() % 1000}.{int(asyncio.get_running_loop().time() * 1000) % 997}"
    try:
        # Before the fix the shell alone was killed: its child kept the output pipe open and
        # the loop waited for it forever, far past --check-timeout.
        outcome = await asyncio.wait_for(
            run_check(f"sleep {marker} & wait; echo done", str(tmp_path), 0.5), timeout=20
        )
    except TimeoutError:
        for pid in _live_processes_running(f"sleep {marker}"):
            os.kill(pid, 9)
        raise

    assert outcome.exit_code == 124
    for _ in range(30):
        if not _live_processes_running(f"sleep {marker}"):
            break
        await asyncio.sleep(0.1)
    left = _live_processes_running(f"sleep {marker}")
    for pid in left:  # do not leak it from the test either
        os.kill(pid, 9)
    assert not left, "the check's child process is still running"


@pytest.mark.parametrize("seconds", ["0", "-5"])
def test_a_check_timeout_that_is_not_positive_is_refused(tmp_path: Path, seconds: str) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "x"}])
    done = run_loop(
        "x", "--until", "true", "--check-timeout", seconds, "--model", model, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "--check-timeout must be a positive number of seconds" in done.stderr
    assert "iteration 1" not in done.stdout  # refused before the agent ran
