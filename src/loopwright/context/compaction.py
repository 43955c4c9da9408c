"""Compaction: keep a long session inside its context window.

Stage 1 (:func:`clear_old_tool_results`, no model call) replaces large old tool results
with stubs. Stage 2 (:func:`summarise`) asks the session's own model to summarise older
history, then rebuilds the history as: the original task statement (verbatim), the
summary, and the most recent turns (verbatim). Cuts never separate a tool_use from its
result. :func:`compact` runs stage 1 and, when that is not enough, stage 2.

The loop fires PreCompact before calling :func:`compact`, emits ``compact_boundary`` with
:meth:`CompactionResult.boundary_data`, records the result with
``SessionRecorder.compaction`` and resets its ``ContextMeter``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from loopwright.context.history import (
    clear_old_tool_results,
    first_prompt_index,
    recent_cut,
)
from loopwright.context.render import SUMMARY_HEADER, render_for_summary
from loopwright.context.tokens import estimate_tokens
from loopwright.errors import LoopwrightError
from loopwright.messages import ConversationMessage, TextBlock, Usage, UserMessage
from loopwright.models.base import Model, ModelRequest, ModelResponse, ToolSpec

CompactTrigger = Literal["manual", "auto"]
CompactStage = Literal["cleared", "summarised"]

SUMMARY_SYSTEM_PROMPT = """\
You write the working memory of an AI agent whose conversation has grown too long. The \
agent will continue from your summary alone (plus its original task, which it keeps), \
so write what it needs to carry on without repeating work:

1. The user's goal, requirements and constraints, including later changes to them.
2. What has been done: files read, created or changed (exact paths), commands run and \
their outcomes, decisions made and why.
3. Errors met and how they were resolved, or that they are still open.
4. The current state and the next concrete steps.

Keep exact identifiers, paths, numbers and error messages. Be concise and specific; no \
preamble, no closing remarks."""


class CompactionError(LoopwrightError):
    """Compaction could not run (nothing to summarise, or the summariser failed)."""


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    threshold: float = 0.8  # auto-compact when the context passes this share of the window
    keep_recent_turns: int = 2  # turns kept verbatim by stage 2
    clear_keep_recent_turns: int = 3  # turns whose tool results stage 1 never clears
    clear_min_chars: int = 2000  # tool results at least this long are cleared by stage 1
    clear_target: float = 0.6  # stage 1 alone is enough when it gets below this share
    summary_max_tokens: int = 4096
    instructions: str | None = None  # "compact instructions" from AGENTS.md / CLAUDE.md


@dataclass(frozen=True, slots=True)
class CompactionResult:
    messages: list[ConversationMessage]
    pre_tokens: int
    post_tokens: int
    trigger: CompactTrigger
    stage: CompactStage
    summary: str = ""
    # The summariser call's usage (count it in the session's cost), and its model.
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    summarised_messages: int = 0

    def boundary_data(self) -> dict[str, Any]:
        """The data of the ``compact_boundary`` SystemMessage."""
        return {
            "trigger": self.trigger,
            "pre_tokens": self.pre_tokens,
            "post_tokens": self.post_tokens,
            "stage": self.stage,
        }


def should_compact(context_tokens: int, window: int, threshold: float = 0.8) -> bool:
    return window > 0 and context_tokens >= threshold * window


class CompactionBreaker:
    """Stops auto-compaction after ``max_failures`` failures in a row.

    A summariser that keeps failing (or keeps producing summaries too large to help) would
    otherwise be retried before every request, burning money without progress.
    """

    def __init__(self, max_failures: int = 3) -> None:
        self.max_failures = max_failures
        self.failures = 0
        self.last_error: str | None = None

    @property
    def open(self) -> bool:
        return self.failures >= self.max_failures

    def allow(self) -> bool:
        return not self.open

    def record_success(self) -> None:
        self.failures, self.last_error = 0, None

    def record_failure(self, error: BaseException | str) -> None:
        self.failures += 1
        self.last_error = str(error)

    def describe(self) -> str:
        return (
            f"auto-compaction stopped after {self.failures} failures in a row (last: "
            f"{self.last_error}); run /compact to try again or start a new session"
        )


async def summarise(
    messages: Sequence[ConversationMessage],
    model: Model,
    *,
    keep_recent_turns: int = 2,
    instructions: str | None = None,
    focus: str | None = None,
    trigger: CompactTrigger = "auto",
    window: int = 128_000,
    summary_max_tokens: int = 4096,
    system: str = "",
    tools: Sequence[ToolSpec] = (),
    pre_tokens: int | None = None,
) -> CompactionResult:
    """Stage 2: summarise all but the task statement and the last turns with ``model``."""
    before = (
        pre_tokens
        if pre_tokens is not None
        else estimate_tokens(messages, system=system, tools=tools)
    )
    first = first_prompt_index(messages)
    start = first + 1 if first is not None else 0
    cut = _cut_with_something_older(messages, start, keep_recent_turns)
    older = list(messages[start:cut])
    budget = max(1000, int(window * 0.7) - summary_max_tokens)
    request = ModelRequest(
        model=model.name,
        system=_system_prompt(instructions, focus),
        messages=[UserMessage(render_for_summary(older, budget))],
        max_tokens=summary_max_tokens,
        metadata={"purpose": "compaction"},
    )
    response = await _complete(model, request)
    summary = "".join(b.text for b in response.content if isinstance(b, TextBlock)).strip()
    if not summary:
        raise CompactionError("the summariser returned no text; the history was left as it was")
    head: list[ConversationMessage] = [messages[first]] if first is not None else []
    # Tagged like the rest of the history (a subagent's messages carry its Agent call's id).
    owner = messages[0].parent_tool_use_id if messages else None
    summary_message = UserMessage(f"{SUMMARY_HEADER}\n\n{summary}", owner)
    compacted = [*head, summary_message, *messages[cut:]]
    return CompactionResult(
        messages=compacted,
        pre_tokens=before,
        post_tokens=estimate_tokens(compacted, system=system, tools=tools),
        trigger=trigger,
        stage="summarised",
        summary=summary,
        usage=response.usage,
        model=response.model or model.name,
        summarised_messages=len(older),
    )


def _cut_with_something_older(
    messages: Sequence[ConversationMessage], start: int, keep_recent_turns: int
) -> int:
    # Keep fewer turns when the recent ones are all there is: a history of two huge turns
    # must still be compactable.
    for keep in sorted({keep_recent_turns, 1, 0}, reverse=True):
        if keep > keep_recent_turns:
            continue
        cut = recent_cut(messages, keep)
        if cut > start:
            return cut
    raise CompactionError(
        "nothing to compact: the history holds only the task statement and the turns kept "
        "verbatim; start a new session or shorten the prompt"
    )


def _system_prompt(instructions: str | None, focus: str | None) -> str:
    parts = [SUMMARY_SYSTEM_PROMPT]
    if instructions:
        parts.append(f"Project instructions for summaries (follow them):\n{instructions.strip()}")
    if focus:
        parts.append(f"The user asked to focus the summary on: {focus.strip()}")
    return "\n\n".join(parts)


async def _complete(model: Model, request: ModelRequest) -> ModelResponse:
    response: ModelResponse | None = None
    try:
        async for event in model.stream(request):
            if isinstance(event, ModelResponse):
                response = event
    except LoopwrightError as exc:
        raise CompactionError(f"the summariser call failed: {exc}") from exc
    if response is None:
        raise CompactionError("the summariser's stream ended without a response")
    return response


async def compact(
    messages: Sequence[ConversationMessage],
    model: Model,
    *,
    window: int,
    trigger: CompactTrigger = "auto",
    settings: CompactionSettings | None = None,
    focus: str | None = None,
    system: str = "",
    tools: Sequence[ToolSpec] = (),
    pre_tokens: int | None = None,
) -> CompactionResult:
    """Stage 1, then stage 2 if stage 1 did not free enough (or the user asked: manual)."""
    config = settings or CompactionSettings()
    before = (
        pre_tokens
        if pre_tokens is not None
        else estimate_tokens(messages, system=system, tools=tools)
    )
    cleared = clear_old_tool_results(
        messages, config.clear_keep_recent_turns, config.clear_min_chars
    )
    after_clear = estimate_tokens(cleared, system=system, tools=tools)
    if trigger == "auto" and after_clear <= config.clear_target * window:
        return CompactionResult(cleared, before, after_clear, trigger, "cleared")
    result = await summarise(
        cleared,
        model,
        keep_recent_turns=config.keep_recent_turns,
        instructions=config.instructions,
        focus=focus,
        trigger=trigger,
        window=window,
        summary_max_tokens=config.summary_max_tokens,
        system=system,
        tools=tools,
        pre_tokens=before,
    )
    if trigger == "manual" and result.post_tokens >= after_clear:
        # /compact on a short chat: a summary plus the kept turns would be bigger than the
        # conversation itself. Keep the conversation (its summariser call is still paid).
        return CompactionResult(
            cleared, before, after_clear, trigger, "cleared", usage=result.usage, model=result.model
        )
    if trigger == "auto" and result.post_tokens >= before:
        raise CompactionError(
            f"compaction did not shrink the context ({before} → {result.post_tokens} tokens); "
            "the recent turns are too large to keep verbatim"
        )
    return result
