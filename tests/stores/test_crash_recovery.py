"""A writer killed with SIGKILL mid-tool (and mid-line) leaves a session that resumes cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from loopwright.stores import JSONLStore, check_pairing, restore, resume_session

CHILD = r"""
import asyncio, os, sys, time
from loopwright.messages import (
    AssistantMessage, TextBlock, ToolResultBlock, ToolUseBlock, UserMessage,
)
from loopwright.stores import JSONLStore, start_transcript

async def main(home):
    store = JSONLStore(home, cwd="/crash")
    opened = await start_transcript(store, "crashy", "/crash")
    rec = opened.recorder
    await rec.message(UserMessage("long task"))
    for n in range(200):
        call = ToolUseBlock(f"c{n}", "Bash", {"command": f"step {n}"})
        await rec.message(AssistantMessage([TextBlock(f"step {n}"), call], model="scripted"))
        await rec.message(UserMessage([ToolResultBlock(call.id, "ok " * 50)]))
        if n % 20 == 0:
            await rec.sync()
    final = ToolUseBlock("c-final", "Bash", {"command": "sleep 1000"})
    await rec.message(AssistantMessage([final], model="scripted"))
    # A half-written line, as if the process died inside a write.
    with open(store.path_of("crashy"), "ab") as handle:
        handle.write(b'{"v":1,"kind":"message","uuid":"half')
    print("READY", flush=True)
    time.sleep(1000)

asyncio.run(main(sys.argv[1]))
"""


async def test_sigkill_mid_tool_then_resume_has_no_orphans_or_duplicates(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "READY"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    opened = await resume_session(JSONLStore(tmp_path, cwd="/crash"), "crashy")
    restored = opened.restored
    assert restored is not None
    assert len(restored.messages) == 1 + 200 * 2 + 2  # prompt, turns, final call, its closure
    assert check_pairing(restored.messages) == []
    assert "torn last line" in restored.warnings[0]
    await opened.recorder.sync()
    again = restore(await JSONLStore(tmp_path, cwd="/crash").load("crashy"))
    uuids = [m.uuid for m in again.messages]
    assert len(uuids) == len(set(uuids)) and again.messages == restored.messages
    assert again.warnings == []  # the torn bytes were cut before the repair was appended
