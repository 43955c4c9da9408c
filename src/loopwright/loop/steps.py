"""The steps of a run, the counters they move, and the result a run ends with.

A run is a sequence of steps — :class:`Prompt`, :class:`Ask`, :class:`RunTools`,
:class:`Finish` — that :func:`loopwright.loop.run._run` takes one at a time. Every helper
of the loop returns a :class:`Then`: the messages it produced and the step that comes
next, so no branch can end a run by forgetting to say how. Deciders only read
:class:`RunState`; :func:`advance`, called by ``_run`` as it takes a step, is the one
place it changes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Message,
    ResultMessage,
    ResultSubtype,
    ToolUseBlock,
    UserMessage,
)
from loopwright.session.session import Session
from loopwright.tools.base import ToolGate

if TYPE_CHECKING:  # import cost only: guardrails and approvals load when a run has them
    from loopwright.guardrails import GuardrailTrip
    from loopwright.stores.approvals import PendingBatch

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
    """End the run with this result."""

    subtype: ResultSubtype
    stop_reason: str | None
    errors: tuple[str, ...] = ()
    structured_output: Any = None
    # pending_approval: the calls that wait (PendingCall.to_dict() each).
    pending: tuple[dict[str, Any], ...] = ()
    # The result's text when it is not the model's last answer (a manual compaction).
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Prompt:
    """Put the user's prompt in the conversation (through the prompt hooks)."""

    prompt: UserMessage


AskReason = Literal[
    "prompt",  # the prompt is in the conversation
    "after_tools",  # a batch's results are in
    "approved",  # the calls that waited for approval are answered, and no prompt came
    "continue_cut_text",  # the answer was cut off by max_tokens: continue it
    "pause_turn",  # the provider paused a long turn
    "retry_cut_tool_call",  # a tool call was cut off by max_tokens: again with more room
    "structured_retry",  # the structured answer was missing or invalid
    "stop_hook_blocked",  # a Stop hook sent the model back to work
    "compacted_after_overflow",  # the prompt was too long: compacted, ask again
]


@dataclass(frozen=True, slots=True)
class Ask:
    """Call the model: first ``note`` goes out and ``follow_up`` joins the conversation."""

    reason: AskReason
    follow_up: UserMessage | None = None
    max_tokens: int | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Settling:
    """The batch that waited for approval, run under the approvers' answers; the prompt
    that came with them goes in once it is settled."""

    batch: PendingBatch
    gate: ToolGate
    prompt: UserMessage | None


@dataclass(frozen=True, slots=True)
class RunTools:
    """Run one batch of tool calls (``settling``: the batch that waited for approval)."""

    calls: Sequence[ToolUseBlock]
    settling: Settling | None = None


Step = Prompt | Ask | RunTools | Finish

InputChecks: TypeAlias = "asyncio.Task[GuardrailTrip | None]"


@dataclass(frozen=True, slots=True)
class Then:
    """What a helper of the loop produced: messages for the stream (each already in the
    conversation where it belongs there), the step that comes next, and — once the prompt
    is in — the input guardrails running beside the first model call."""

    messages: Sequence[Message]
    step: Step
    input_checks: InputChecks | None = None


INTERRUPTED_BY_USER = Finish("interrupted", None, ("interrupted by the user",))


@dataclass(frozen=True, slots=True)
class RunState:
    """Counters of one run (one prompt): what the deciders read; :func:`advance` moves."""

    started: float = field(default_factory=time.monotonic)
    num_turns: int = 0
    structured_attempts: int = 0
    continuations: int = 0
    pauses: int = 0
    max_tokens_override: int | None = None
    cut_tool_call_retried: bool = False
    reactive_compaction_tried: bool = False
    stop_blocks: int = 0


def advance(run: RunState, step: Step) -> RunState:
    """The run's counters once ``step`` is taken."""
    match step:
        case RunTools(settling=None):
            return dataclasses.replace(run, num_turns=run.num_turns + 1, pauses=0)
        case Ask(reason=reason, max_tokens=max_tokens):
            counted = dataclasses.replace(
                run,
                pauses=run.pauses + 1 if reason == "pause_turn" else 0,
                max_tokens_override=max_tokens or run.max_tokens_override,
            )
            return _count_ask(counted, reason)
        case _:
            return run


def _count_ask(run: RunState, reason: AskReason) -> RunState:
    match reason:
        case "continue_cut_text":
            return dataclasses.replace(run, continuations=run.continuations + 1)
        case "retry_cut_tool_call":
            return dataclasses.replace(run, cut_tool_call_retried=True)
        case "structured_retry":
            return dataclasses.replace(run, structured_attempts=run.structured_attempts + 1)
        case "stop_hook_blocked":
            return dataclasses.replace(run, stop_blocks=run.stop_blocks + 1)
        case "compacted_after_overflow":
            return dataclasses.replace(run, reactive_compaction_tried=True)
        case _:
            return run


def final_text(messages: Sequence[ConversationMessage]) -> str:
    """The run's answer: the text of the model's last answer — every part of it, when it
    was continued after a cut or a pause — read from the end of the conversation."""
    parts: list[str] = []
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            parts.append(message.text)
        elif message.content != CONTINUE_PROMPT:
            break
    return "".join(reversed(parts))


def result_text(session: Session, finish: Finish) -> str:
    if finish.text is not None:
        return finish.text
    text = final_text(session.conversation.messages)
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
        result=result_text(session, finish) if success else None,
        structured_output=finish.structured_output,
        model_usage=spent.model_usage,
        stop_reason=finish.stop_reason,
        permission_denials=list(session.spend.denials),
        errors=list(finish.errors),
        pending_approvals=list(finish.pending),
    )
