"""Options for the fleet approval test, rebuilt by every worker from its environment.

``deploy`` needs approval; when it runs it appends ``<session> <target> <worker pid>`` to
a shared log.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from loopwright.messages import ToolResultBlock, UserMessage
from loopwright.models.base import ModelRequest
from loopwright.options import Options
from loopwright.testing import FunctionModel, text, tool_call
from loopwright.tools.base import ToolContext, tool


@tool(needs_approval=True)
def deploy(target: str, ctx: ToolContext) -> str:
    """Deploy to a target."""
    with Path(os.environ["FLEET_TEST_LOG"]).open("a") as log:
        log.write(f"{ctx.session_id} {target} {os.getpid()}\n")
    return f"deployed to {target}"


def answer(request: ModelRequest) -> Any:
    """Deploy first; once the deploy call has its result, report (on any worker)."""
    last = request.messages[-1]
    if isinstance(last, UserMessage) and any(isinstance(b, ToolResultBlock) for b in last.blocks):
        return text("deployed and done")
    return tool_call("deploy", target="prod")


def approval_options() -> Options:
    return Options(
        model=FunctionModel(answer),
        tools=[deploy],
        permission_mode="bypassPermissions",
        setting_sources=[],
        session_store=os.environ["FLEET_TEST_STORE"],
        cwd=os.environ["FLEET_TEST_CWD"],
    )
