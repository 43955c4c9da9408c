"""The hook events the loop fires itself: SessionStart, UserPromptSubmit and Stop.

The permission gate fires the tool events; compaction fires PreCompact.
"""

from __future__ import annotations

from loopwright.loop.steps import MAX_STOP_HOOK_BLOCKS, AskAgain, Finish, NextStep, RunState
from loopwright.messages import (
    Message,
    SystemMessage,
    TextBlock,
    UserMessage,
)
from loopwright.session.runtime import Runtime


async def submit_prompt(
    rt: Runtime, prompt: UserMessage
) -> tuple[UserMessage, Finish | None, list[Message]]:
    """SessionStart (first prompt only) and UserPromptSubmit: a hook may add context to
    the prompt, or block it."""
    notices: list[Message] = []
    context: list[str] = []
    if rt.parent is not None:
        return prompt, None, notices  # a subagent's task is not a user prompt
    if not rt.started:
        rt.started = True
        source = "resume" if rt.history else "startup"
        outcome, shown = await rt.fire_hook("SessionStart", match_value=source, source=source)
        notices += shown
        if outcome is not None and outcome.additional_context:
            context.append(outcome.additional_context)
    text = (
        prompt.content
        if isinstance(prompt.content, str)
        else "\n".join(b.text for b in prompt.blocks if isinstance(b, TextBlock))
    )
    outcome, shown = await rt.fire_hook("UserPromptSubmit", prompt=text)
    notices += shown
    if outcome is not None and (outcome.blocked or not outcome.continue_):
        reason = outcome.reason or outcome.stop_reason or "no reason given"
        return (
            prompt,
            Finish(
                "error_during_execution", None, (f"the prompt was blocked by a hook: {reason}",)
            ),
            notices,
        )
    if outcome is not None and outcome.additional_context:
        context.append(outcome.additional_context)
    if context:
        blocks = [*prompt.blocks, *(TextBlock(c) for c in context)]
        prompt = UserMessage(blocks, prompt.parent_tool_use_id, prompt.uuid)
    return prompt, None, notices


async def stop_hook(rt: Runtime, run: RunState, finish: Finish) -> tuple[NextStep, list[Message]]:
    """A Stop hook that blocks sends its reason back to the model and the run goes on."""
    event = "SubagentStop" if rt.parent_tool_use_id else "Stop"
    active = run.stop_blocks > 0
    outcome, notices = await rt.fire_hook(event, stop_hook_active=active)
    if outcome is None or not outcome.blocked:
        run.stop_blocks = 0
        return finish, notices
    if run.stop_blocks >= MAX_STOP_HOOK_BLOCKS:
        notices.append(
            SystemMessage(
                "informational",
                {"message": f"{event} hooks blocked {MAX_STOP_HOOK_BLOCKS} times in a row; ending"},
            )
        )
        return finish, notices
    run.stop_blocks += 1
    run.final_text.clear()  # that answer was not the last word
    reason = outcome.reason or "A Stop hook asked you to keep going."
    return AskAgain(UserMessage(reason, rt.parent_tool_use_id)), notices
