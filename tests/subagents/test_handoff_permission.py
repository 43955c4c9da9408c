"""A handoff is part of the agent: it needs no allow rule, but a deny or ask rule still
applies to it (as for any tool)."""

from typing import Any

from loopwright import Options, ResultMessage, query
from loopwright.messages import Message, ToolResultBlock, UserMessage
from loopwright.subagents.handoffs import HandoffAgent, handoff
from loopwright.testing import ScriptedModel, text, tool_call

BILLING = HandoffAgent(name="Billing", instructions="You handle refunds.", tools=[])


def _options(model: Any, **extra: Any) -> Options:
    return Options(
        model=model, tools=[handoff(BILLING)], setting_sources=[], persist_session=False, **extra
    )


async def _run(opts: Options) -> list[Message]:
    return [m async for m in query("refund A1", opts)]


def _results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        b
        for m in messages
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]


async def test_a_handoff_runs_in_default_mode_without_an_allow_rule() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Billing here.")])

    messages = await _run(_options(model))

    (result,) = _results(messages)
    assert not result.is_error, result.content
    assert model.requests[-1].system == "You handle refunds."
    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.permission_denials == []


async def test_a_handoff_runs_in_dont_ask_mode() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Billing here.")])

    messages = await _run(_options(model, permission_mode="dontAsk"))

    (result,) = _results(messages)
    assert not result.is_error, result.content


async def test_a_deny_rule_on_a_handoff_still_holds() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Staying.")])

    messages = await _run(_options(model, disallowed_tools=["transfer_to_billing(*)"]))

    (result,) = _results(messages)
    assert result.is_error
    assert model.requests[-1].system != "You handle refunds."
