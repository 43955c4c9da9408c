"""Options for the fleet takeover test, rebuilt by every worker from its environment.

The tool appends ``<session> <tag> <worker pid>`` to a shared log, between two short
pauses, so that a worker killed at a random moment is likely to be inside a call.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from loopwright.options import Options
from loopwright.tools.base import ToolContext, tool


@tool
async def append_line(tag: str, ctx: ToolContext) -> str:
    """Append a line naming this call to the shared log."""
    await asyncio.sleep(0.1)
    with Path(os.environ["FLEET_TEST_LOG"]).open("a") as log:
        log.write(f"{ctx.session_id} {tag} {os.getpid()}\n")
    await asyncio.sleep(0.1)
    return f"appended {tag}"


def fleet_options() -> Options:
    return Options(
        model=f"scripted:{os.environ['FLEET_TEST_SCRIPT']}",
        tools=[append_line],
        allowed_tools=["append_line"],
        setting_sources=[],
        session_store=os.environ["FLEET_TEST_STORE"],
        cwd=os.environ["FLEET_TEST_CWD"],
    )
