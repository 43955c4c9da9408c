"""A process hosting a Client leaves no child behind however it ends: SIGTERM, SIGHUP,
SIGINT, Client.disconnect() mid-call, a cancelled task, or the interpreter exiting with a
background shell still running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cli.test_stopping import MARKER_VARIABLE, none_left, wait_for

HOST = """
import asyncio, os, sys
from loopwright import Client, Options
from loopwright.testing import ScriptedModel, text, tool_call

how, started = sys.argv[1], sys.argv[2]
steps = [
    tool_call("Bash", command="sleep 300", run_in_background=True),
    tool_call("Bash", command=f"touch {started}; sleep 300"),
    text("never reached"),
]
if how == "exit":
    steps = [tool_call("Bash", command="sleep 300", run_in_background=True),
             tool_call("Bash", command=f"touch {started}"), text("done")]

async def serve(client: Client) -> None:
    await client.query("go")
    async for _ in client.receive_response():
        pass


async def main() -> None:
    options = Options(model=ScriptedModel(steps), permission_mode="bypassPermissions",
                      setting_sources=[], persist_session=False)
    if how == "cancel":  # a web handler's task cancelled mid-call
        async def handler() -> None:
            async with Client(options) as client:
                await serve(client)
        task = asyncio.ensure_future(handler())
    else:
        client = Client(options)
        await client.connect()
        task = asyncio.ensure_future(serve(client))
    if how == "exit":
        await task
        sys.exit(0)  # no disconnect: the background shell is still running
    while not os.path.exists(started):
        await asyncio.sleep(0.02)
    if how == "disconnect":
        await client.disconnect()
    elif how == "cancel":
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    else:
        await asyncio.sleep(600)  # until a signal ends the process

asyncio.run(main())
"""


def host(tmp_path: Path, how: str) -> tuple[subprocess.Popen[str], str]:
    script = tmp_path / "host.py"
    script.write_text(HOST)
    marker = uuid.uuid4().hex
    started = tmp_path / "started"
    process = subprocess.Popen(
        [sys.executable, str(script), how, str(started)],
        cwd=tmp_path,
        env={**os.environ, MARKER_VARIABLE: marker},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(started, process)
    return process, marker


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signalled_host_takes_its_children_with_it(tmp_path: Path, signum: int) -> None:
    process, marker = host(tmp_path, "signal")
    process.send_signal(signum)
    process.communicate(timeout=30)
    assert process.returncode != 0
    assert none_left(marker) == []


@pytest.mark.parametrize("how", ["disconnect", "cancel", "exit"])
def test_a_host_that_ends_its_session_any_way_leaves_no_child(tmp_path: Path, how: str) -> None:
    process, marker = host(tmp_path, how)
    _, err = process.communicate(timeout=60)
    assert none_left(marker) == [], err
