"""Compaction inside the loop: automatic past the threshold, reactive when the provider
says the prompt is too long, and manual through a ``/compact [focus]`` prompt.
"""

from __future__ import annotations

from loopwright.context.compaction import compact, should_compact
from loopwright.loop.steps import Finish, Then
from loopwright.loop.work import interruptible
from loopwright.messages import Message, SystemMessage, UserMessage
from loopwright.session.session import Session
from loopwright.stores.recorder import CompactTrigger


def manual_compact_focus(prompt: UserMessage) -> str | None:
    """``/compact [focus]`` as a prompt asks for a compaction instead of an answer."""
    if not isinstance(prompt.content, str):
        return None
    text = prompt.content.strip()
    if text != "/compact" and not text.startswith("/compact "):
        return None
    return text[len("/compact") :].strip()


async def manual_compact(session: Session, focus: str) -> Then:
    """The run of a ``/compact`` prompt: the compaction's messages, then its end."""
    try:
        messages = await compact_history(session, "manual", focus or None)
    except Exception as exc:  # the summariser is a model call: anything may fail
        return Then((), Finish("error_during_execution", None, (f"compaction failed: {exc}",)))
    shrank = any(
        isinstance(m, SystemMessage)
        and m.subtype == "compact_boundary"
        and m.data["post_tokens"] < m.data["pre_tokens"]
        for m in messages
    )
    said = (
        "Conversation compacted."
        if shrank
        else "Nothing to compact: the conversation is already shorter than a summary of it."
    )
    return Then(messages, Finish("success", "end_turn", text=said))


async def compact_now(session: Session, tokens: int) -> list[Message]:
    """Compact before the next request (``tokens`` from :func:`compaction_due`); an
    interrupt cancels it."""
    return await interruptible(session, _auto_compact(session, tokens)) or []


def compaction_due(session: Session, *, forced: bool = False) -> int | None:
    """The context size when compaction should run before the next request — past the
    threshold, or ``forced`` when the provider said the prompt is too long — else None.
    Cheap and synchronous, so a (cancellable) compaction starts only when one is due."""
    if not session.breaker.allow():
        return None
    agent = session.agent
    count = session.meter.count(
        session.conversation.messages, system=agent.system_prompt, tools=agent.tool_specs()
    )
    due = forced or should_compact(count.tokens, agent.window, agent.compaction.threshold)
    return count.tokens if due else None


async def _auto_compact(session: Session, tokens: int) -> list[Message]:
    """Compact now; a failure is reported and counted by the circuit breaker, not raised."""
    breaker = session.breaker
    try:
        messages = await compact_history(session, "auto", None, pre_tokens=tokens)
    except Exception as exc:  # the summariser is a model call: anything may fail
        breaker.record_failure(exc)
        note = breaker.describe() if breaker.open else f"auto-compaction failed: {exc}"
        return [SystemMessage("informational", {"message": note})]
    breaker.record_success()
    return messages


async def compact_history(
    session: Session,
    trigger: CompactTrigger,
    focus: str | None,
    *,
    pre_tokens: int | None = None,
) -> list[Message]:
    outcome, notices = await session.fire_hook(
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
    agent = session.agent
    result = await compact(
        session.conversation.messages,
        agent.model,
        window=agent.window,
        trigger=trigger,
        settings=agent.compaction,
        focus=focus,
        system=agent.system_prompt,
        tools=agent.tool_specs(),
        pre_tokens=pre_tokens,
    )
    session.meter.reset()
    if result.model:
        session.spend.add_usage(result.model, result.usage)
    if result.stage == "summarised":
        await session.conversation.compacted(result, trigger)
    else:
        session.conversation.replace(result.messages)
    return [*notices, SystemMessage("compact_boundary", result.boundary_data())]
