"""Every tool call the model made is answered, even when it was cut short or skipped, and a
skipped call's result says why."""

from typing import Any

from error_advice import assert_says_what_to_do
from loopwright import Client
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    ResultMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.testing import ScriptedModel, raw_tool_call, text, tool_calls
from loopwright.types import PermissionResultAllow, PermissionResultDeny
from support import base_options, collect


def unanswered_calls(history: list[ConversationMessage]) -> list[str]:
    """tool_use ids in ``history`` that no tool_result answers."""
    answered = {
        b.tool_use_id
        for m in history
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    }
    return [
        b.id
        for m in history
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolUseBlock) and b.id not in answered
    ]


async def test_tool_call_cut_twice_by_max_tokens_still_gets_a_result() -> None:
    cut = raw_tool_call("look", '{"path": "a.').with_(stop_reason="max_tokens")
    model = ScriptedModel([cut, cut, text("second answer")])
    async with Client(base_options(model)) as client:
        await client.query("one")
        first = [m async for m in client.receive_response()]
        await client.query("two")
        [m async for m in client.receive_response()]
    assert isinstance(first[-1], ResultMessage) and first[-1].is_error
    assert_says_what_to_do(first[-1].errors[0], "raise max_tokens")
    # The history the model gets for the next prompt must pair every tool_use.
    assert unanswered_calls(model.requests[2].messages) == []


async def test_calls_skipped_after_an_interrupting_denial_say_why() -> None:
    def decide(name: str, input: dict[str, Any], ctx: Any) -> Any:
        if input["path"] == "b":
            return PermissionResultDeny("no b", interrupt=True)
        return PermissionResultAllow()

    model = ScriptedModel(
        [tool_calls([("touch", {"path": "a"}), ("touch", {"path": "b"}), ("touch", {"path": "c"})])]
    )
    messages = await collect(
        "go", base_options(model, permission_mode="default", can_use_tool=decide)
    )
    results = [
        b
        for m in messages
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    skipped = results[2]
    assert skipped.is_error
    assert "None" not in skipped.text
