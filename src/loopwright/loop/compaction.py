"""Compaction inside the loop: automatic past the threshold, reactive when the provider
says the prompt is too long, and manual through a ``/compact [focus]`` prompt.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from loopwright.context.compaction import compact, should_compact
from loopwright.loop.steps import Finish, RunState, result_message
from loopwright.messages import (
    Message,
    SystemMessage,
    UserMessage,
)
from loopwright.session.runtime import Runtime
from loopwright.sessions.recorder import CompactTrigger


def manual_compact_focus(prompt: UserMessage) -> str | None:
    """``/compact [focus]`` as a prompt asks for a compaction instead of an answer."""
    if not isinstance(prompt.content, str):
        return None
    text = prompt.content.strip()
    if text != "/compact" and not text.startswith("/compact "):
        return None
    return text[len("/compact") :].strip()


async def manual_compact(rt: Runtime, run: RunState, focus: str) -> AsyncIterator[Message]:
    try:
        messages = await compact_history(rt, run, "manual", focus or None)
    except Exception as exc:  # the summariser is a model call: anything may fail
        yield result_message(
            rt, run, Finish("error_during_execution", None, (f"compaction failed: {exc}",))
        )
        return
    shrank = False
    for message in messages:
        if isinstance(message, SystemMessage) and message.subtype == "compact_boundary":
            shrank = message.data["post_tokens"] < message.data["pre_tokens"]
        yield message
    run.final_text.append(
        "Conversation compacted."
        if shrank
        else "Nothing to compact: the conversation is already shorter than a summary of it."
    )
    yield result_message(rt, run, Finish("success", "end_turn"))


def compaction_due(rt: Runtime, *, forced: bool = False) -> int | None:
    """The context size when auto-compaction should run before the next request, else None.

    Cheap and synchronous, so the loop starts a (cancellable) compaction task only when
    there is one to run.
    """
    if not rt.breaker.allow():
        return None
    tokens = rt.meter.count(rt.history, system=rt.system_prompt, tools=rt.tool_specs).tokens
    due = forced or should_compact(tokens, rt.window, rt.compaction.threshold)
    return tokens if due else None


async def auto_compact(rt: Runtime, run: RunState, tokens: int) -> list[Message]:
    """Compact now; a failure is reported and counted by the circuit breaker, not raised."""
    try:
        messages = await compact_history(rt, run, "auto", None, pre_tokens=tokens)
    except Exception as exc:  # the summariser is a model call: anything may fail
        rt.breaker.record_failure(exc)
        note = rt.breaker.describe() if rt.breaker.open else f"auto-compaction failed: {exc}"
        return [SystemMessage("informational", {"message": note})]
    rt.breaker.record_success()
    return messages


async def compact_history(
    rt: Runtime,
    run: RunState,
    trigger: CompactTrigger,
    focus: str | None,
    *,
    pre_tokens: int | None = None,
) -> list[Message]:
    outcome, notices = await rt.fire_hook(
        "PreCompact", match_value=trigger, trigger=trigger, custom_instructions=focus or ""
    )
    if outcome is not None and outcome.blocked:
        reason = outcome.reason or "no reason given"
        return [
            *notices,
            SystemMessage(
                "informational",
                {"message": f"compaction skipped: a PreCompact hook blocked it ({reason})"},
            ),
        ]
    result = await compact(
        rt.history,
        rt.model,
        window=rt.window,
        trigger=trigger,
        settings=rt.compaction,
        focus=focus,
        system=rt.system_prompt,
        tools=rt.tool_specs,
        pre_tokens=pre_tokens,
    )
    rt.history[:] = result.messages
    rt.meter.reset()
    if result.model:
        rt.add_usage(result.model, result.usage)
    if rt.recorder is not None and result.stage == "summarised":
        await rt.recorder.compaction(
            result.messages,
            trigger=trigger,
            pre_tokens=result.pre_tokens,
            post_tokens=result.post_tokens,
            summary=result.summary,
            usage=result.usage,
            model=result.model,
        )
    return [*notices, SystemMessage("compact_boundary", result.boundary_data())]
