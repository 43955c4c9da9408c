"""The hook events the loop fires itself: SessionStart, UserPromptSubmit and Stop.

The permission gate fires the tool events; compaction fires PreCompact.
"""

from __future__ import annotations

from dataclasses import dataclass

from loopwright.loop.steps import MAX_STOP_HOOK_BLOCKS, Ask, Finish, RunState, Then
from loopwright.messages import Message, SystemMessage, TextBlock, UserMessage
from loopwright.session.session import Session


@dataclass(frozen=True, slots=True)
class Submitted:
    """The prompt as hooks left it (perhaps with added context), or why it was blocked,
    and what the hooks had to say."""

    prompt: UserMessage
    blocked: Finish | None
    notices: list[Message]


async def submit_prompt(session: Session, prompt: UserMessage) -> Submitted:
    """SessionStart (first prompt only) and UserPromptSubmit: a hook may add context to
    the prompt, or block it."""
    notices: list[Message] = []
    context: list[str] = []
    if session.parent is not None:
        return Submitted(prompt, None, notices)  # a subagent's task is not a user prompt
    if not session.started:
        session.started = True
        source = "resume" if session.conversation.messages else "startup"
        outcome, shown = await session.fire_hook("SessionStart", match_value=source, source=source)
        notices += shown
        if outcome is not None and outcome.additional_context:
            context.append(outcome.additional_context)
    text = (
        prompt.content
        if isinstance(prompt.content, str)
        else "\n".join(b.text for b in prompt.blocks if isinstance(b, TextBlock))
    )
    outcome, shown = await session.fire_hook("UserPromptSubmit", prompt=text)
    notices += shown
    if outcome is not None and (outcome.blocked or not outcome.continue_):
        reason = outcome.reason or outcome.stop_reason or "no reason given"
        blocked = Finish(
            "error_during_execution", None, (f"the prompt was blocked by a hook: {reason}",)
        )
        return Submitted(prompt, blocked, notices)
    if outcome is not None and outcome.additional_context:
        context.append(outcome.additional_context)
    if context:
        blocks = [*prompt.blocks, *(TextBlock(c) for c in context)]
        prompt = UserMessage(blocks, prompt.parent_tool_use_id, prompt.uuid)
    return Submitted(prompt, None, notices)


async def stop_hook(session: Session, run: RunState, finish: Finish) -> Then:
    """A Stop hook that blocks sends its reason back to the model and the run goes on."""
    parent_tool_use_id = session.agent.parent_tool_use_id
    event = "SubagentStop" if parent_tool_use_id else "Stop"
    active = run.stop_blocks > 0
    outcome, notices = await session.fire_hook(event, stop_hook_active=active)
    if outcome is None or not outcome.blocked:
        return Then(notices, finish)
    if run.stop_blocks >= MAX_STOP_HOOK_BLOCKS:
        note = f"{event} hooks blocked {MAX_STOP_HOOK_BLOCKS} times in a row; ending"
        return Then([*notices, SystemMessage("informational", {"message": note})], finish)
    reason = outcome.reason or "A Stop hook asked you to keep going."
    return Then(notices, Ask("stop_hook_blocked", UserMessage(reason, parent_tool_use_id)))
