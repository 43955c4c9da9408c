"""Tools whose every call is a DBOS step named after its tool_use_id.

A call that completed is never run again: a recovered workflow gets the recorded result,
and the shared session state (working directory, files read, todos) as the call left it.

A call that was running when its worker died has no recorded result. An idempotent tool
(read-only ones, and those the worker was told about) simply runs again. Any other tool
records that it started before it runs, in a step of its own: a replay that finds the
start but no result knows the call may have done its work, and answers the model with an
error result that says so instead of doing it a second time.
"""

from __future__ import annotations

from typing import Any

from dbos import DBOS

from loopwright.tools.base import (
    Tool,
    ToolContext,
    ToolResult,
    ToolWrapper,
    idempotent_of,
    timeout_of,
)
from loopwright.tools.executor import invoke

from .records import apply_state_record, tool_result_from_record, tool_result_to_record

MAY_HAVE_RUN = (
    "{name} was running when the worker executing this session stopped (crash, kill or "
    "lost machine), and it may or may not have finished its work. It is not marked "
    "idempotent, so it was not run again. Check whether its effects are there before "
    "calling it again."
)

# The executor's own timeout around a durable call only backs up the one inside the step;
# it must not fire first, or a call that finished would go unrecorded.
OUTER_TIMEOUT_GRACE_SECONDS = 30.0


class DurableTool(ToolWrapper):
    """``inner`` with ``call()`` checkpointed; the timeout is applied inside the step so
    that a timed-out call is recorded with its error result like any other."""

    def __init__(self, inner: Tool, default_timeout: float, *, idempotent: bool) -> None:
        self._inner = inner
        self._idempotent = idempotent
        self._timeout = timeout_of(inner) or default_timeout

    @property
    def wrapped(self) -> Tool:
        return self._inner

    @property
    def idempotent(self) -> bool:
        return self._idempotent

    @property
    def timeout_seconds(self) -> float:
        return self._timeout + OUTER_TIMEOUT_GRACE_SECONDS

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        async def run_once() -> dict[str, Any]:
            result = await invoke(self._inner, input, ctx, self._timeout)
            return tool_result_to_record(result, ctx.state)

        step_name = f"loopwright.tool:{self.name}:{ctx.tool_use_id}"
        if self.idempotent:
            record = await DBOS.run_step_async({"name": step_name}, run_once)
        else:
            started_here = await _mark_started(f"loopwright.tool_start:{ctx.tool_use_id}")

            async def run_at_most_once() -> dict[str, Any]:
                if started_here:
                    return await run_once()
                refusal = ToolResult(MAY_HAVE_RUN.format(name=self.name), is_error=True)
                return tool_result_to_record(refusal, ctx.state)

            record = await DBOS.run_step_async({"name": step_name}, run_at_most_once)
        apply_state_record(record["state"], ctx.state)
        return tool_result_from_record(record)


async def _mark_started(step_name: str) -> bool:
    """Record that a call starts; True if this is that first start, False when the record
    was already there (an earlier run of the session started the call and died)."""
    ran_live = False

    async def mark() -> bool:
        nonlocal ran_live
        ran_live = True
        return True

    await DBOS.run_step_async({"name": step_name}, mark)
    return ran_live


def is_idempotent(tool: Tool, declared: frozenset[str]) -> bool:
    """Safe to run twice: the tool says so (an ``idempotent`` attribute), the worker was
    told so by name, or it only reads."""
    own = idempotent_of(tool)
    if isinstance(own, bool):
        return own
    return tool.name in declared or tool.read_only


def durable_tools(
    tools: dict[str, Tool], default_timeout: float, idempotent_tools: frozenset[str]
) -> dict[str, Tool]:
    return {
        name: DurableTool(tool, default_timeout, idempotent=is_idempotent(tool, idempotent_tools))
        for name, tool in tools.items()
    }
