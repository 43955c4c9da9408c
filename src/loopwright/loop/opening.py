"""How a run opens: calls that wait for approval are settled first; then the prompt goes
in through the prompt hooks — or, as ``/compact [focus]``, asks for a compaction."""

from __future__ import annotations

from loopwright.loop.compaction import manual_compact, manual_compact_focus
from loopwright.loop.guardrail_checks import start_input_checks
from loopwright.loop.hook_events import submit_prompt
from loopwright.loop.steps import Ask, Finish, Prompt, Then
from loopwright.messages import UserMessage
from loopwright.session.session import Session


def first_step(session: Session, prompt: UserMessage | None) -> Then:
    """The waiting calls before the prompt; ``prompt`` None goes on from them alone."""
    if session.pending is not None:
        from loopwright.loop.approvals import settle  # start-up: only calls waiting need it

        return settle(session, prompt)
    if prompt is None:
        reason = (
            f"nothing to go on from: session {session.session_id} has no calls waiting for "
            "approval; send a prompt instead"
        )
        return Then((), Finish("error_during_execution", None, (reason,)))
    return Then((), Prompt(prompt))


async def submitted(session: Session, prompt: UserMessage) -> Then:
    """The prompt in the conversation, its input guardrails started beside the first model
    call; or the hooks' reason it was blocked; or a manual compaction's result."""
    focus = manual_compact_focus(prompt)
    if focus is not None:
        return await manual_compact(session, focus)
    hooked = await submit_prompt(session, prompt)
    if hooked.blocked is not None:
        return Then(hooked.notices, hooked.blocked)
    appended = await session.conversation.append(hooked.prompt)
    session.checkpoint(hooked.prompt.uuid)
    checks = start_input_checks(session.agent, hooked.prompt)
    return Then([*hooked.notices, appended], Ask("prompt"), checks)
