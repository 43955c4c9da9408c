"""The gate a tool call passes before and after it runs: what it decides and reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from loopwright.errors import ConfigurationError
from loopwright.tools.context import ToolContext
from loopwright.tools.interface import Tool
from loopwright.tools.results import ToolResult
from loopwright.types import HookNotice, PermissionMode


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Whether a validated tool call may run, with what input, and why not.

    ``interrupt`` ends the whole run after this batch (a deny that stops the agent).
    ``additional_context`` is appended to the tool result for the model.
    """

    allowed: bool
    input: dict[str, Any]
    message: str = ""
    interrupt: bool = False
    additional_context: str | None = None
    # Not run now: the call waits for a person's approval (``message`` says why), and the
    # run ends pending_approval; ``suggestion`` is a rule that would allow such calls.
    deferred: bool = False
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class GateReport:
    """What a gate learned during one batch: what hooks said, and whether one stopped the run."""

    notices: tuple[HookNotice, ...] = ()
    stop_reason: str | None = None


class ToolGate(Protocol):
    """Runs around every tool call: permissions and PreToolUse before, PostToolUse after.

    Everything the loop and the Client use of a gate is declared here.
    """

    @property
    def mode(self) -> PermissionMode: ...

    def set_mode(self, mode: PermissionMode) -> None: ...

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision: ...

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult: ...

    def end_batch(self) -> GateReport:
        """What the batch that just ended left to report; the gate forgets it."""
        ...


class OpenGate:
    """Lets every call run unchanged (used when no permission policy is configured)."""

    @property
    def mode(self) -> PermissionMode:
        return "bypassPermissions"

    def set_mode(self, mode: PermissionMode) -> None:
        raise ConfigurationError(
            "this session runs without a permission gate, so there is no mode to change; "
            "build it from Options (permission_mode=...) to get one"
        )

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision:
        return GateDecision(True, input)

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult:
        return result

    def end_batch(self) -> GateReport:
        return GateReport()
