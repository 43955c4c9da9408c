"""A worker process for the durable tests: runs, queues or recovers one session.

    python crash_worker.py DATABASE_URL WORKDIR SCRIPT WORKFLOW_ID MODE

MODE is start, queue, reference, versioned or recover.

``start`` runs the session in this process (durable_run), ``queue`` puts it on the
session queue (which this process also serves), ``reference`` runs it with options named
by "module:function" (with a @tool, which no pickle carries), ``versioned`` by reference
too, with options that depend on $DURABLE_TEST_VARIANT; ``recover`` only launches a
new worker, which takes the dead worker's pending session over, and waits for it. The
ResultMessage is printed as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from loopwright.durable import (
    durable_run,
    enqueue_session,
    launch_durable,
    session_result,
    shutdown_durable,
)
from loopwright.options import Options
from loopwright.tools.base import tool

PROMPT = "do the work"


def session_options(workdir: str, script: str) -> Options:
    return Options(
        model=f"scripted:{script}",
        tools=["Bash"],
        permission_mode="bypassPermissions",
        setting_sources=[],
        cwd=workdir,
    )


@tool
def take_note(note: str) -> str:
    """Append a note to notes.log in the session's directory."""
    with (Path(os.environ["DURABLE_TEST_WORKDIR"]) / "notes.log").open("a") as notes:
        notes.write(note + "\n")
    return "noted"


def versioned_options() -> Options:
    """Bash sessions whose system prompt comes from the worker's environment: a worker
    started with another DURABLE_TEST_VARIANT runs other options than the recorded ones."""
    return Options(
        model=f"scripted:{os.environ['DURABLE_TEST_SCRIPT']}",
        tools=["Bash"],
        permission_mode="bypassPermissions",
        setting_sources=[],
        cwd=os.environ["DURABLE_TEST_WORKDIR"],
        system_prompt=f"variant {os.environ.get('DURABLE_TEST_VARIANT', 'a')}",
    )


def referenced_options() -> Options:
    """Rebuilt by whichever process runs the session, from its own environment."""
    return Options(
        model=f"scripted:{os.environ['DURABLE_TEST_SCRIPT']}",
        tools=[take_note],
        allowed_tools=["take_note"],
        setting_sources=[],
        cwd=os.environ["DURABLE_TEST_WORKDIR"],
    )


async def main(database_url: str, workdir: str, script: str, workflow_id: str, mode: str) -> None:
    # Each process is a new worker; a short takeover keeps the recovery tests quick.
    replay = os.environ.get("DURABLE_TEST_REPLAY_OTHER_VERSIONS") == "1"
    await launch_durable(database_url, takeover_seconds=3, replay_other_versions=replay)
    os.environ["DURABLE_TEST_WORKDIR"], os.environ["DURABLE_TEST_SCRIPT"] = workdir, script
    try:
        options = session_options(workdir, script)
        if mode == "start":
            result = await durable_run(PROMPT, options, workflow_id=workflow_id)
        elif mode in ("reference", "versioned"):
            reference = f"crash_worker:{mode.replace('reference', 'referenced')}_options"
            result = await durable_run(PROMPT, reference, workflow_id=workflow_id)
        elif mode == "queue":
            await enqueue_session(PROMPT, options, workflow_id=workflow_id)
            result = await session_result(workflow_id)
        else:
            result = await session_result(workflow_id)
        print(json.dumps(result.to_dict()), flush=True)
    finally:
        shutdown_durable()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
