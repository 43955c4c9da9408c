"""What a tool returns, and the one way it asks the loop for something.

A tool answers the model with a :class:`ToolResult`. When it needs the loop to act — hand
the conversation to another agent, end the run, run no more calls of this response — it
says so in the result's ``request`` (a :data:`LoopRequest`). The executor carries each
call's request to the tool turn, in the model's order, and the loop acts on them once
the batch is done. Nothing else a tool can reach (its context, the session's services)
changes what the loop does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from loopwright.messages import ImageBlock, SystemMessage, TextBlock


@runtime_checkable
class Handover(Protocol):
    """The agent a handoff tool hands the conversation to.

    ``subagents.handoffs.PendingHandoff`` is the one the loop applies: what a switch
    needs (the target's tools, model and guardrails) lives in layers above tools, so the
    request can only name it here.
    """

    @property
    def agent_name(self) -> str: ...

    @property
    def tool_name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SwitchAgent:
    """After this batch, another agent talks, on the same conversation (a handoff).

    Only the first switch of a batch takes effect (a second handoff tool declines)."""

    to: Handover
    kind: Literal["switch_agent"] = "switch_agent"


@dataclass(frozen=True, slots=True)
class EndRun:
    """After this batch, the run ends with ``subtype``: ``notice`` goes into the stream,
    then the result with ``errors`` (a tripped tool guardrail)."""

    subtype: Literal["error_guardrail_tripped"]
    notice: SystemMessage
    errors: tuple[str, ...] = ()
    kind: Literal["end_run"] = "end_run"


@dataclass(frozen=True, slots=True)
class StopBatch:
    """Run no more calls of this response: each call after this one gets a result saying
    ``reason``; the run goes on, and the model reads why."""

    reason: str
    kind: Literal["stop_batch"] = "stop_batch"


LoopRequest = SwitchAgent | EndRun | StopBatch


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns: text or text+image blocks, whether it failed, and what (if
    anything) it asks of the loop."""

    content: str | list[TextBlock | ImageBlock]
    is_error: bool = False
    request: LoopRequest | None = None

    @classmethod
    def error(cls, message: str, request: LoopRequest | None = None) -> ToolResult:
        return cls(message, is_error=True, request=request)
