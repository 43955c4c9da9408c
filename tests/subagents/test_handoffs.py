"""Handoffs through the real loop: the active agent changes and the conversation goes on."""

from pathlib import Path
from typing import Any

import pytest

from loopwright import Options, query, tool
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Message,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
)
from loopwright.stores.api import open_store
from loopwright.subagents.handoffs import HandoffAgent, handoff
from loopwright.testing import ScriptedModel, TestModel, text, tool_call, tool_calls
from support import base_options


@tool
def refund(order: str) -> str:
    """Refund an order."""
    return f"refunded {order}"


def options(model: Any, tools: list[Any]) -> Options:
    return base_options(model, system_prompt="You are the triage agent.", tools=tools)


async def collect(prompt: str, opts: Options) -> list[Message]:
    return [m async for m in query(prompt, opts)]


BILLING = HandoffAgent(name="Billing", instructions="You handle refunds.", tools=[refund])


async def test_after_a_handoff_the_model_gets_the_targets_instructions_and_tools() -> None:
    model = ScriptedModel(
        [tool_call("transfer_to_billing"), tool_call("refund", order="A1"), text("Refunded.")]
    )

    messages = await collect("refund A1", options(model, [handoff(BILLING)]))

    first, second, third = model.requests
    assert first.system == "You are the triage agent."
    assert [t.name for t in first.tools] == ["transfer_to_billing"]
    assert second.system == third.system == "You handle refunds."
    assert [t.name for t in second.tools] == ["refund"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "Refunded."


async def test_the_conversation_goes_on_with_the_same_history() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Hello from billing.")])

    await collect("refund A1", options(model, [handoff(BILLING)]))

    history = model.requests[1].messages
    assert history[0].content == "refund A1"
    assert isinstance(history[1], AssistantMessage) and history[1].tool_calls[0].name == (
        "transfer_to_billing"
    )
    result = history[2].content[0]
    assert isinstance(result, ToolResultBlock) and result.text == '{"assistant": "Billing"}'


async def test_the_handoff_is_a_system_message_in_the_stream() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("ok")])

    messages = await collect("hi", options(model, [handoff(BILLING)]))

    switches = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "handoff"]
    assert len(switches) == 1
    assert switches[0].data["to_agent"] == "Billing"
    assert switches[0].data["tool_name"] == "transfer_to_billing"


async def test_the_handoff_is_recorded_in_the_transcript(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("ok")])
    opts = options(model, [handoff(BILLING)])
    opts.persist_session = True
    opts.session_store = f"sqlite:{tmp_path / 'sessions.db'}"
    messages = await collect("hi", opts)

    result = messages[-1]
    assert isinstance(result, ResultMessage)
    entries = await open_store(opts.session_store).load(result.session_id)
    payloads = [e.payload for e in entries if e.kind == "message"]
    assert any(
        p.get("subtype") == "handoff" and p["data"]["to_agent"] == "Billing" for p in payloads
    )


async def test_on_handoff_receives_the_models_input() -> None:
    seen: list[dict[str, Any]] = []
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}}
    escalate = handoff(BILLING, on_handoff=seen.append, input_schema=schema)
    model = ScriptedModel([tool_call("transfer_to_billing", reason="angry"), text("ok")])

    await collect("hi", options(model, [escalate]))

    assert seen == [{"reason": "angry"}]
    assert model.requests[0].tools[0].input_schema == schema


async def test_an_input_filter_rewrites_the_history_the_target_sees() -> None:
    def drop_tools(history: list[ConversationMessage]) -> list[ConversationMessage]:
        return [m for m in history if isinstance(m, UserMessage) and isinstance(m.content, str)]

    model = ScriptedModel([tool_call("transfer_to_billing"), text("ok")])

    await collect("refund A1", options(model, [handoff(BILLING, input_filter=drop_tools)]))

    assert [m.content for m in model.requests[1].messages] == ["refund A1"]


async def test_a_handoff_to_an_agent_with_its_own_model_switches_the_model() -> None:
    billing_model = ScriptedModel([text("billing speaking")], name="billing-model")
    target = HandoffAgent(name="Billing", instructions="Refunds.", model=billing_model)
    triage_model = ScriptedModel([tool_call("transfer_to_billing")], name="triage-model")

    messages = await collect("hi", options(triage_model, [handoff(target)]))

    assert len(billing_model.requests) == 1
    final = [m for m in messages if isinstance(m, AssistantMessage)][-1]
    assert final.model == "billing-model"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "billing speaking"


async def test_only_the_first_of_two_handoffs_in_one_turn_takes_effect() -> None:
    other = HandoffAgent(name="Sales", instructions="Sell.")
    model = ScriptedModel(
        [tool_calls([("transfer_to_billing", {}), ("transfer_to_sales", {})]), text("ok")]
    )

    messages = await collect("hi", options(model, [handoff(BILLING), handoff(other)]))

    results = [b for m in messages if isinstance(m, UserMessage) for b in m.blocks]
    refused = [b for b in results if isinstance(b, ToolResultBlock) and b.is_error]
    assert len(refused) == 1 and "already being handed to 'Billing'" in refused[0].text
    assert model.requests[1].system == "You handle refunds."


async def test_handoff_agents_may_refer_to_each_other_through_a_callable() -> None:
    def back() -> HandoffAgent:
        return HandoffAgent(name="Triage", instructions="Triage again.", tools=[])

    target = HandoffAgent(
        name="Billing", instructions="Refunds.", tools=[handoff(back, agent_name="Triage")]
    )
    model = TestModel()

    messages = await collect("hi", options(model, [handoff(target)]))

    switches = [
        m.data["to_agent"]
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "handoff"
    ]
    assert switches == ["Billing", "Triage"]
    assert model.requests[-1].system == "Triage again."


def test_handoff_of_a_callable_without_a_name_says_what_to_pass() -> None:
    with pytest.raises(ValueError, match="agent_name="):
        handoff(lambda: BILLING)


async def test_a_handoff_is_a_new_agent_on_the_same_conversation() -> None:
    from loopwright import Client

    model = ScriptedModel([tool_call("transfer_to_billing"), text("Billing here.")])
    async with Client(options(model, [handoff(BILLING)])) as client:
        session = client.session
        before = session.agent
        await client.query("refund A1")
        _ = [m async for m in client.receive_response()]
        after = session.agent

    assert after is not before and after.name == "Billing"
    # The agent that handed off is unchanged: an Agent is never edited after it is built.
    assert before.name is None and before.system_prompt == "You are the triage agent."
    assert list(before.tools) == ["transfer_to_billing"] and list(after.tools) == ["refund"]
    # One conversation across the switch: prompt, handoff call, its result, Billing's answer.
    assert [m.type for m in session.conversation.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
