"""Tools whose every call is a DBOS step named after its tool_use_id.

A call that completed is never run again: a recovered workflow gets the recorded result,
and the shared session state (working directory, files read, todos) as the call left it.
"""

from __future__ import annotations

from typing import Any

from dbos import DBOS

from loopwright.tools.base import Tool, ToolContext, ToolResult
from loopwright.tools.executor import invoke

from .records import apply_state_record, tool_result_from_record, tool_result_to_record

# The executor's own timeout around a durable call only backs up the one inside the step;
# it must not fire first, or a call that finished would go unrecorded.
OUTER_TIMEOUT_GRACE_SECONDS = 30.0


class DurableTool:
    """``inner`` with ``call()`` checkpointed; the timeout is applied inside the step so
    that a timed-out call is recorded with its error result like any other."""

    def __init__(self, inner: Tool, default_timeout: float) -> None:
        self._inner = inner
        own = getattr(inner, "timeout_seconds", None)
        self._timeout = float(own) if isinstance(own, int | float) and own else default_timeout

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def description(self) -> str:
        return self._inner.description

    @property
    def input_schema(self) -> dict[str, Any]:
        return self._inner.input_schema

    @property
    def read_only(self) -> bool:
        return self._inner.read_only

    @property
    def timeout_seconds(self) -> float:
        return self._timeout + OUTER_TIMEOUT_GRACE_SECONDS

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        async def run_once() -> dict[str, Any]:
            result = await invoke(self._inner, input, ctx, self._timeout)
            return tool_result_to_record(result, ctx.state)

        step_name = f"loopwright.tool:{self.name}:{ctx.tool_use_id}"
        record = await DBOS.run_step_async({"name": step_name}, run_once)
        apply_state_record(record["state"], ctx.state)
        return tool_result_from_record(record)


def durable_tools(tools: dict[str, Tool], default_timeout: float) -> dict[str, Tool]:
    return {name: DurableTool(tool, default_timeout) for name, tool in tools.items()}
