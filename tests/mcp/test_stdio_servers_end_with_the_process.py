"""A stdio MCP server ends with the process that started it, even when a SIGTERM skips
every clean-up: the SDK keeps the server's pid to itself, so loopwright finds the
session it was started in and tracks it like any child of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from mcp_support import DEMO_SERVER

MARKER = "LOOPWRIGHT_TEST_MCP_MARKER"

# An embedding program with no signal handling of its own; the server is started through
# a shell that leaves a background child in the server's process group (a helper the
# server spawned, say), which the server's exit on stdin EOF does not end.
PROGRAM = """
import asyncio, json, sys
from loopwright.mcp import McpManager

async def main():
    async with McpManager() as manager:
        await manager.start({"demo": json.loads(sys.argv[1])})
        print("connected", flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


def marked(marker: str) -> list[int]:
    found: list[int] = []
    needle = f"{MARKER}={marker}".encode()
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
    while (left := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)  # killed processes vanish asynchronously; poll with a deadline
    return left


def test_sigterm_ends_a_stdio_server_and_what_it_started(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    server = {
        "command": "sh",
        "args": ["-c", f"sleep 300 & exec {sys.executable} {DEMO_SERVER}"],
        "env": {MARKER: marker},
    }
    program = subprocess.Popen(
        [sys.executable, "-c", PROGRAM, json.dumps(server)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert program.stdout is not None
        line = program.stdout.readline()
        assert line.strip() == "connected", program.stderr.read() if program.stderr else ""
        assert len(marked(marker)) >= 2  # the server and its background child
        program.send_signal(signal.SIGTERM)
        program.wait(timeout=30)
        assert program.returncode == -signal.SIGTERM
        assert none_left(marker) == []
    finally:
        program.kill()
        for pid in marked(marker):
            os.kill(pid, signal.SIGKILL)
