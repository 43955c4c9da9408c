"""The REPL resuming a session whose call waits for approval asks about it like any other
call, then goes on."""

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .conftest import READY

StartCli = Callable[..., Any]


def _script(path: Path, steps: list[dict[str, object]]) -> str:
    path.write_text(yaml.safe_dump(steps))
    return f"scripted:{path}"


def test_resuming_a_waiting_session_in_the_repl_asks_for_the_waiting_call(
    tmp_path: Path, start_cli: StartCli
) -> None:
    ship = {"tool_call": {"name": "Bash", "input": {"command": "touch shipped"}}}
    first = _script(tmp_path / "first.yaml", [ship])
    flags = ["--tools", "Bash", "--defer-tools", "Bash(touch *)", "--output-format", "json"]
    started = subprocess.run(
        [sys.executable, "-m", "loopwright.cli.main", "-p", "ship", "--model", first, *flags],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    assert started.returncode == 0, started.stderr
    session_id = json.loads(started.stdout)["session_id"]
    assert not (tmp_path / "shipped").exists()

    final = _script(tmp_path / "final.yaml", [{"text": "shipped it"}])
    cli = start_cli("-r", session_id, "--model", final, "--tools", "Bash", cwd=tmp_path)
    cli.expect("1 call(s) wait for approval")
    cli.expect("? allow Bash(touch shipped)")
    cli.expect("[a]lways allow ")
    cli.send_line("y")
    cli.expect("shipped it")
    cli.expect("success")
    cli.expect(READY)
    assert (tmp_path / "shipped").exists()
    cli.send_line("/exit")
    assert cli.wait() == 0
