"""A session id names one conversation: a new session under an existing id is refused
(resume or fork it instead), and ``sessions show`` shows the whole of it, compactions
marked where they happened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from loopwright import Client, Options, run
from loopwright.context.compaction import SUMMARY_SYSTEM_PROMPT
from loopwright.models.base import ModelRequest
from loopwright.stores import SessionError
from loopwright.testing import FunctionModel, ScriptedModel, text

CLI = [sys.executable, "-m", "loopwright.cli.main"]


def options(tmp_path: Path, model: object, **extra: object) -> Options:
    return Options(
        permission_mode="bypassPermissions",
        model=model,  # type: ignore[arg-type]
        cwd=tmp_path,
        tools=[],
        setting_sources=[],
        **extra,  # type: ignore[arg-type]
    )


async def test_a_new_session_under_an_existing_id_is_refused(tmp_path: Path) -> None:
    first = await run(
        "remember 42", options(tmp_path, ScriptedModel([text("ok")]), session_id="s-1")
    )
    assert first.session_id == "s-1"
    second = ScriptedModel([text("a second root")])
    with pytest.raises(SessionError) as caught:
        await run("hello", options(tmp_path, second, session_id="s-1"))
    message = str(caught.value)
    assert "already exists" in message and "--resume s-1" in message and "fork" in message
    assert second.requests == []
    resumed = ScriptedModel([text("it was 42")])
    again = await run("what number?", options(tmp_path, resumed, resume="s-1"))
    assert again.subtype == "success" and resumed.requests[0].messages[0].content == "remember 42"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=60
    )


def test_the_cli_refuses_a_second_session_with_the_same_id(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text(yaml.safe_dump([{"text": "one"}]))
    common = ["--model", f"scripted:{script}", "--session-id", "fixed-id"]
    first = _cli("-p", "first", *common, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = _cli("-p", "second", *common, cwd=tmp_path)
    assert second.returncode != 0
    assert "already exists" in second.stderr and "--resume fixed-id" in second.stderr
    shown = _cli("sessions", "show", "fixed-id", "--json", cwd=tmp_path)
    prompts = [json.loads(line).get("content") for line in shown.stdout.splitlines()]
    assert "first" in prompts and "second" not in prompts


def _is_summary_request(request: ModelRequest) -> bool:
    return SUMMARY_SYSTEM_PROMPT.splitlines()[0] in request.system


async def test_sessions_show_shows_everything_with_the_compaction_marked(tmp_path: Path) -> None:
    model = FunctionModel(
        lambda request: text("summary of earlier work" if _is_summary_request(request) else "ok")
    )
    async with Client(options(tmp_path, model)) as client:
        long_tail = " details" * 500
        prompts = ("first question" + long_tail, "second" + long_tail, "/compact", "after it")
        for prompt in prompts:
            await client.query(prompt)
            [m async for m in client.receive_response()]
        session_id = client.session_id
    shown = _cli("sessions", "show", session_id, "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    lines = [json.loads(line) for line in shown.stdout.splitlines()]
    kinds = [(line["type"], line.get("subtype")) for line in lines]
    assert ("system", "compact_boundary") in kinds, kinds
    marker = kinds.index(("system", "compact_boundary"))
    before = json.dumps(lines[:marker])
    assert "first question" in before  # what a resume replaces with the summary is shown
    assert lines[marker]["data"]["summary"]
    assert "after it" in json.dumps(lines[marker + 1 :]), kinds
