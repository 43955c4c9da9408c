"""``loopwright approvals``: a run defers in one CLI process, later ones list and answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

CLI = [sys.executable, "-m", "loopwright.cli.main"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _script(path: Path, steps: list[dict[str, object]]) -> str:
    path.write_text(yaml.safe_dump(steps))
    return f"scripted:{path}"


def _deferred(tmp_path: Path) -> tuple[list[str], str]:
    where = ["--cwd", str(tmp_path), "--session-store", f"sqlite:{tmp_path / 's.db'}"]
    deploy = {"tool_call": {"name": "Bash", "input": {"command": "touch shipped"}}}
    model = _script(tmp_path / "first.yaml", [deploy])
    started = _cli(
        "-p",
        "ship",
        "--model",
        model,
        "--tools",
        "Bash",
        "--defer-tools",
        "Bash(touch *)",
        "--output-format",
        "json",
        *where,
        cwd=tmp_path,
    )
    assert started.returncode == 0, started.stderr
    result = json.loads(started.stdout)
    assert result["subtype"] == "pending_approval" and not (tmp_path / "shipped").exists()
    return where, result["session_id"]


def test_the_cli_lists_a_waiting_call_and_approving_it_runs_it_and_finishes(tmp_path: Path) -> None:
    where, session_id = _deferred(tmp_path)

    listed = _cli("approvals", "list", *where, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert (
        session_id in listed.stdout and "Bash" in listed.stdout and "touch shipped" in listed.stdout
    )
    assert "matches approval rule Bash(touch *)" in listed.stdout

    model = _script(tmp_path / "final.yaml", [{"text": "shipped it"}])
    approved = _cli(
        "approvals",
        "approve",
        session_id[:8],
        "--model",
        model,
        "--tools",
        "Bash",
        *where,
        cwd=tmp_path,
    )
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip() == "shipped it" and (tmp_path / "shipped").exists()
    assert _cli("approvals", "list", *where, cwd=tmp_path).stdout == ""


def test_denying_from_the_cli_answers_the_model_and_a_second_answer_is_an_error(
    tmp_path: Path,
) -> None:
    where, session_id = _deferred(tmp_path)
    model = _script(tmp_path / "final.yaml", [{"text": "ok, not shipping"}])

    denied = _cli(
        "approvals",
        "deny",
        session_id,
        "--message",
        "freeze week",
        "--model",
        model,
        "--tools",
        "Bash",
        *where,
        cwd=tmp_path,
    )
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout.strip() == "ok, not shipping" and not (tmp_path / "shipped").exists()

    again = _cli("approvals", "approve", session_id, "--model", model, *where, cwd=tmp_path)
    assert again.returncode == 1
    assert "is not waiting" in again.stderr and "approvals list" in again.stderr


def test_sessions_show_and_the_html_export_show_the_waiting_call(tmp_path: Path) -> None:
    where, session_id = _deferred(tmp_path)

    shown = _cli("sessions", "show", session_id, *where, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "touch shipped" in shown.stdout and "matches approval rule" in shown.stdout
    as_json = _cli("sessions", "show", session_id, "--json", *where, cwd=tmp_path)
    last = json.loads(as_json.stdout.splitlines()[-1])
    assert last["type"] == "pending_approval" and last["tool_name"] == "Bash"

    page = _cli("sessions", "export", session_id, "-o", "-", *where, cwd=tmp_path).stdout
    assert "waiting for approval" in page and last["tool_use_id"] in page
