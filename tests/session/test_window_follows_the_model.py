"""The context window and token meter come from the model that talks: after a handoff to
another model, and in a subagent with a model of its own, as after ``set_model``."""

from __future__ import annotations

from loopwright import Client, Options
from loopwright.context.tokens import context_window
from loopwright.options import AgentDefinition
from loopwright.session.child import child_session
from loopwright.subagents.handoffs import HandoffAgent, handoff
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options


class SmallWindowModel(ScriptedModel):
    context_window = 5_000


class BigWindowModel(ScriptedModel):
    context_window = 1_000_000


def options(model: ScriptedModel, **extra: object) -> Options:
    return base_options(model, **extra)


async def test_a_handoff_to_another_model_uses_that_models_window() -> None:
    small = SmallWindowModel([text("billing here")])
    target = HandoffAgent(name="Billing", instructions="Refunds.", tools=[], model=small)
    triage = BigWindowModel([tool_call("transfer_to_billing")])
    async with Client(options(triage, tools=[handoff(target)])) as client:
        assert client.get_context_usage()["window"] == 1_000_000
        await client.query("refund A1")
        async for _ in client.receive_response():
            pass
        assert client.session.agent.model.name == small.name
        assert client.get_context_usage()["window"] == 5_000
        assert client.session.agent.window == 5_000


async def test_a_subagent_with_its_own_model_gets_that_models_window() -> None:
    async with Client(options(BigWindowModel([text("hi")]), tools=[])) as client:
        definition = AgentDefinition(description="helps", prompt="Help.", model="test")
        child = child_session(client.session, "helper", definition, "toolu_1")
        expected = context_window("test")
        assert expected != 1_000_000
        assert child.agent.window == expected
        assert child.meter.window == expected
        assert client.session.meter.window == 1_000_000
