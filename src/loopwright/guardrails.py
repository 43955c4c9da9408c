"""Guardrails: checks that run beside the model or around a tool and can stop the run.

* ``input`` guardrails see the user's prompt; they start with the run and run beside the
  first model call. If one trips, the model's answer is thrown away.
* ``output`` guardrails see the final answer (text and structured output) before the run
  reports success.
* ``tool_input`` guardrails see a tool call before it runs; ``tool_output`` ones see its
  result before the model does. Besides tripping, a tool guardrail may *reject*: the model
  then gets the guardrail's message instead of the call's output, and the run goes on.

A tripped guardrail ends the run with ``ResultMessage(subtype="error_guardrail_tripped")``,
after a ``SystemMessage(subtype="guardrail_tripped")`` that says which one and why. A tool
guardrail asks for that the way every tool asks the loop: its result's ``EndRun`` request.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from loopwright.messages import ConversationMessage, SystemMessage
from loopwright.tools.base import Tool, ToolContext, ToolResult, ToolWrapper
from loopwright.tools.results import EndRun

GuardrailKind = Literal["input", "output", "tool_input", "tool_output"]
GUARDRAIL_TRIPPED_SUBTYPE: Final = "error_guardrail_tripped"


@dataclass(frozen=True, slots=True)
class GuardrailVerdict:
    """What a check decided. ``info`` is anything the check wants to report."""

    tripped: bool = False
    info: Any = None
    # Tool guardrails only: give the model this text instead of the call's output.
    reject_message: str | None = None


@dataclass(frozen=True, slots=True)
class GuardrailInput:
    """What a check sees. Input: ``messages`` (the prompt). Output: ``text`` and
    ``structured_output``. Tool checks: ``tool_name``, ``tool_input`` and, after the call,
    ``tool_output``."""

    kind: GuardrailKind
    messages: list[ConversationMessage] = field(default_factory=list[ConversationMessage])
    text: str = ""
    structured_output: Any = None
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_output: ToolResult | None = None
    agent_name: str | None = None


GuardrailCheck = Callable[[GuardrailInput], "GuardrailVerdict | Awaitable[GuardrailVerdict]"]


@dataclass(frozen=True, slots=True)
class Guardrail:
    """A named check of one kind. Tool guardrails apply to ``tools`` (names; None = all)."""

    kind: GuardrailKind
    check: GuardrailCheck
    name: str = ""
    tools: Sequence[str] | None = None

    @property
    def label(self) -> str:
        return self.name or getattr(self.check, "__name__", self.kind)

    def applies_to(self, tool_name: str) -> bool:
        return self.tools is None or tool_name in self.tools


@dataclass(frozen=True, slots=True)
class GuardrailTrip:
    """A guardrail that tripped: which one, and what it reported."""

    guardrail: Guardrail
    verdict: GuardrailVerdict

    def describe(self) -> str:
        return f"{self.guardrail.kind} guardrail {self.guardrail.label!r} tripped"

    def to_data(self) -> dict[str, Any]:
        info = self.verdict.info
        shown = info if isinstance(info, str | int | float | bool | type(None)) else repr(info)
        return {"guardrail": self.guardrail.label, "kind": self.guardrail.kind, "info": shown}

    def notice(self) -> SystemMessage:
        """What the stream shows before the run ends."""
        return SystemMessage("guardrail_tripped", self.to_data())

    def end_run(self) -> EndRun:
        """The request that ends the run after the tool batch."""
        return EndRun(GUARDRAIL_TRIPPED_SUBTYPE, self.notice(), (self.describe(),))


async def run_check(guardrail: Guardrail, data: GuardrailInput) -> GuardrailVerdict:
    produced = guardrail.check(data)
    verdict = await produced if inspect.isawaitable(produced) else produced
    if not isinstance(verdict, GuardrailVerdict):
        raise TypeError(
            f"guardrail {guardrail.label!r} returned {verdict!r}; a guardrail check must "
            "return a GuardrailVerdict"
        )
    return verdict


async def first_trip(guardrails: Sequence[Guardrail], data: GuardrailInput) -> GuardrailTrip | None:
    """Run the guardrails of ``data.kind`` in order; the first that trips, if any."""
    for guardrail in guardrails:
        if guardrail.kind != data.kind:
            continue
        verdict = await run_check(guardrail, data)
        if verdict.tripped:
            return GuardrailTrip(guardrail, verdict)
    return None


# --------------------------------------------------------------------------- tools


@dataclass(frozen=True, slots=True)
class GuardedTool(ToolWrapper):
    """A tool with tool guardrails around it (``guarded_tool`` makes one); everything but
    ``call`` is the wrapped tool's (its schema object, timeout, idempotence …)."""

    inner: Tool
    guardrails: tuple[Guardrail, ...]

    @property
    def wrapped(self) -> Tool:
        return self.inner

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        before = GuardrailInput("tool_input", tool_name=self.name, tool_input=input)
        stop = await self._check(before)
        if stop is not None:
            return stop
        result: ToolResult = await self.inner.call(input, ctx)
        after = GuardrailInput(
            "tool_output", tool_name=self.name, tool_input=input, tool_output=result
        )
        stop = await self._check(after)
        if stop is None:
            return result
        if stop.request is None and result.request is not None:
            # A rejected output is replaced for the model; what the tool asked of the loop
            # (a handoff it made) still stands. A trip's EndRun replaces it.
            return dataclasses.replace(stop, request=result.request)
        return stop

    async def _check(self, data: GuardrailInput) -> ToolResult | None:
        for guardrail in self.guardrails:
            if guardrail.kind != data.kind or not guardrail.applies_to(self.name):
                continue
            verdict = await run_check(guardrail, data)
            if verdict.tripped:
                trip = GuardrailTrip(guardrail, verdict)
                return ToolResult.error(f"Stopped: {trip.describe()}.", request=trip.end_run())
            if verdict.reject_message is not None:
                return ToolResult(verdict.reject_message, is_error=True)
        return None


def guarded_tool(tool: Tool, guardrails: Sequence[Guardrail]) -> Tool:
    """``tool`` with the tool guardrails among ``guardrails`` around it (unchanged if none)."""
    relevant = tuple(
        g for g in guardrails if g.kind in ("tool_input", "tool_output") and g.applies_to(tool.name)
    )
    return GuardedTool(tool, relevant) if relevant else tool
