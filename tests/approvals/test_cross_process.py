"""A run defers, its process exits, another process answers and the run completes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from loopwright import ToolResultBlock, UserMessage, get_pending_approvals
from loopwright.stores import get_session_messages, open_store

HELPER = str(Path(__file__).with_name("approver_process.py"))


def _process(*args: str, hold: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "HOLD": "1" if hold else "0"}
    return subprocess.Popen(
        [sys.executable, HELPER, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = process.communicate(timeout=120)
    assert "Traceback" not in err, err
    return process.returncode, out.strip().splitlines()[-1]


def _start(store: str, cwd: Path, batch: str = "one") -> dict[str, Any]:
    code, line = _finish(_process("start", store, str(cwd), batch))
    assert code == 0, line
    return json.loads(line)


def _answer(store: str, cwd: Path, session_id: str, decisions: dict[str, Any]) -> tuple[int, str]:
    return _finish(_process("answer", store, str(cwd), session_id, json.dumps(decisions)))


def _runs(cwd: Path) -> list[str]:
    log = cwd / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def _last_results(store: str, cwd: Path, session_id: str) -> list[ToolResultBlock]:
    async def load() -> list[Any]:
        chosen = open_store(store, cwd=cwd)
        try:
            return await get_session_messages(session_id, store=chosen, cwd=cwd)
        finally:
            await chosen.aclose()

    messages = asyncio.run(load())
    answers = [
        [b for b in m.blocks if isinstance(b, ToolResultBlock)]
        for m in messages
        if isinstance(m, UserMessage)
    ]
    return [blocks for blocks in answers if blocks][-1]


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:{tmp_path / 'sessions.db'}"


def test_a_deferred_call_approved_by_another_process_runs_and_the_run_finishes(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path)
    assert started["subtype"] == "pending_approval" and not started["is_error"]
    [pending] = started["pending_approvals"]
    assert pending["tool_name"] == "deploy" and pending["input"] == {"target": "prod"}
    assert pending["reason"] and pending["suggestion"] == "deploy"
    assert _runs(tmp_path) == []  # the process that deferred ran nothing

    code, line = _answer(
        store, tmp_path, started["session_id"], {pending["tool_use_id"]: {"behavior": "allow"}}
    )

    assert code == 0, line
    finished = json.loads(line)
    assert finished["subtype"] == "success" and finished["result"] == "finished"
    assert _runs(tmp_path) == ["deploy prod"]
    [result] = _last_results(store, tmp_path, started["session_id"])
    assert result.content == "deployed to prod" and not result.is_error


def test_a_call_denied_by_another_process_never_runs_and_the_model_reads_why(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path)
    call_id = started["pending_approvals"][0]["tool_use_id"]

    deny = {"behavior": "deny", "message": "not on a Friday"}
    code, line = _answer(store, tmp_path, started["session_id"], {call_id: deny})

    assert code == 0, line
    finished = json.loads(line)
    assert finished["subtype"] == "success"
    assert [d["tool_use_id"] for d in finished["permission_denials"]] == [call_id]
    assert _runs(tmp_path) == []
    [result] = _last_results(store, tmp_path, started["session_id"])
    assert result.is_error and "not on a Friday" in str(result.content)


def test_an_approval_with_rewritten_input_runs_the_call_with_that_input(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path)
    call_id = started["pending_approvals"][0]["tool_use_id"]

    allow = {"behavior": "allow", "updated_input": {"target": "staging"}}
    code, line = _answer(store, tmp_path, started["session_id"], {call_id: allow})

    assert code == 0, line
    assert _runs(tmp_path) == ["deploy staging"]
    [result] = _last_results(store, tmp_path, started["session_id"])
    assert result.content == "deployed to staging"


def test_in_a_batch_of_three_only_the_call_needing_approval_waits(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path, "three")
    assert _runs(tmp_path) == ["status before", "status after"]  # ran in the first process
    [pending] = started["pending_approvals"]
    assert pending["tool_name"] == "deploy"
    waiting = asyncio.run(get_pending_approvals(started["session_id"], store=store, cwd=tmp_path))
    assert [c.tool_use_id for c in waiting] == [pending["tool_use_id"]]

    code, line = _answer(
        store, tmp_path, started["session_id"], {pending["tool_use_id"]: {"behavior": "allow"}}
    )

    assert code == 0, line
    assert _runs(tmp_path) == ["status before", "status after", "deploy prod"]  # none twice
    results = _last_results(store, tmp_path, started["session_id"])
    assert [r.content for r in results] == ["before is green", "deployed to prod", "after is green"]


def test_answering_twice_is_an_error_and_never_runs_the_tool_again(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path)
    decisions = {started["pending_approvals"][0]["tool_use_id"]: {"behavior": "allow"}}
    assert _answer(store, tmp_path, started["session_id"], decisions)[0] == 0

    code, line = _answer(store, tmp_path, started["session_id"], decisions)

    assert code == 3
    assert line.startswith("ERROR ApprovalError") and "no calls waiting" in line
    assert _runs(tmp_path) == ["deploy prod"]


def test_answering_a_call_that_is_not_pending_is_an_error_naming_the_waiting_ones(
    store: str, tmp_path: Path
) -> None:
    started = _start(store, tmp_path)
    waiting_id = started["pending_approvals"][0]["tool_use_id"]

    code, line = _answer(
        store, tmp_path, started["session_id"], {"toolu_other": {"behavior": "allow"}}
    )

    assert code == 3 and "toolu_other is not waiting" in line and waiting_id in line
    assert _runs(tmp_path) == []


def test_two_approvers_racing_exactly_one_wins(store: str, tmp_path: Path) -> None:
    started = _start(store, tmp_path)
    session_id = started["session_id"]
    decisions = json.dumps({started["pending_approvals"][0]["tool_use_id"]: {"behavior": "allow"}})
    first = _process("answer", store, str(tmp_path), session_id, decisions, hold=True)
    assert first.stdout is not None and first.stdin is not None
    assert first.stdout.readline().strip() == "RUNNING"  # it holds the session, mid-tool

    code, line = _finish(_process("answer", store, str(tmp_path), session_id, decisions))
    assert code == 3 and "SessionBusyError" in line  # refused while the first runs

    first.stdin.write("go\n")
    first.stdin.flush()
    first_code, first_line = _finish(first)
    assert first_code == 0 and json.loads(first_line)["subtype"] == "success"
    late_code, late_line = _answer(store, tmp_path, session_id, json.loads(decisions))
    assert late_code == 3 and "ApprovalError" in late_line  # and once it is done
    assert _runs(tmp_path) == ["deploy prod"]
