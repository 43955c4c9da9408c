"""What the loop decides after each response, and the result it ends with.

Each model response becomes a tagged next step — :class:`Finish`, :class:`RunTools` or
:class:`AskAgain` — dispatched in one place in :mod:`loopwright.loop.run`.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from loopwright.guardrails import GuardrailTrip
from loopwright.messages import (
    ResultMessage,
    ResultSubtype,
    ToolUseBlock,
    UserMessage,
)
from loopwright.session.session import Session

# How often a response cut by max_tokens mid-text is continued before the run ends.
MAX_TEXT_CONTINUATIONS = 3


MAX_CONSECUTIVE_PAUSES = 10


MAX_STOP_HOOK_BLOCKS = 8


DEFAULT_MAX_TOKENS = 8192


CONTINUE_PROMPT = (
    "Your previous response was cut off by the output token limit. Continue exactly where "
    "it stopped, without repeating anything."
)


INTERRUPTED_RESULT = "Interrupted: the run was stopped before this tool call finished."


@dataclass(frozen=True, slots=True)
class Finish:
    subtype: ResultSubtype
    stop_reason: str | None
    errors: tuple[str, ...] = ()
    structured_output: Any = None
    # pending_approval: the calls that wait (PendingCall.to_dict() each).
    pending: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class RunTools:
    calls: list[ToolUseBlock]


@dataclass(frozen=True, slots=True)
class AskAgain:
    """Call the model again: after pause_turn, a cut-off text, or a cut-off tool call."""

    follow_up: UserMessage | None = None
    max_tokens: int | None = None
    keep_response: bool = True
    note: str | None = None


INTERRUPTED_BY_USER = Finish("interrupted", None, ("interrupted by the user",))

NextStep = Finish | RunTools | AskAgain


@dataclass(slots=True)
class RunState:
    """Counters of one run (one prompt), reported in its ResultMessage."""

    started: float = field(default_factory=time.monotonic)
    num_turns: int = 0
    structured_attempts: int = 0
    final_text: list[str] = field(default_factory=list[str])
    continuations: int = 0
    pauses: int = 0
    max_tokens_override: int | None = None
    cut_tool_call_retried: bool = False
    reactive_compaction_tried: bool = False
    stop_blocks: int = 0
    # Input guardrails run beside the first model call and are settled after it.
    input_checks: asyncio.Task[GuardrailTrip | None] | None = None

    def take_input_checks(self) -> asyncio.Task[GuardrailTrip | None] | None:
        checks, self.input_checks = self.input_checks, None
        return checks


def result_text(run: RunState, finish: Finish) -> str:
    text = "".join(run.final_text)
    if not text and finish.structured_output is not None:
        return json.dumps(finish.structured_output, ensure_ascii=False)
    return text


def result_message(session: Session, run: RunState, finish: Finish) -> ResultMessage:
    """The run's one ResultMessage: how it ended and what this run (only) spent."""
    elapsed_ms = int((time.monotonic() - run.started) * 1000)
    success = finish.subtype == "success"
    spent = session.spend.run
    return ResultMessage(
        subtype=finish.subtype,
        # Waiting for a person is not a failure: the run goes on once they answer.
        is_error=not success and finish.subtype != "pending_approval",
        num_turns=run.num_turns,
        session_id=session.session_id,
        duration_ms=elapsed_ms,
        duration_api_ms=int(spent.api_seconds * 1000),
        total_cost_usd=spent.cost_usd,
        usage=spent.usage,
        result=result_text(run, finish) if success else None,
        structured_output=finish.structured_output,
        model_usage=spent.model_usage,
        stop_reason=finish.stop_reason,
        permission_denials=list(session.spend.denials),
        errors=list(finish.errors),
        pending_approvals=list(finish.pending),
    )
