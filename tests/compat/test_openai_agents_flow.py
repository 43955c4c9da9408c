"""The OpenAI Agents layer's handoffs, guardrails, approvals, sessions, hooks and results,
driven through the real loop by ScriptedModel."""

from typing import Any

import pytest
from openai.types.responses import ResponseTextDeltaEvent
from pydantic import BaseModel

from loopwright.compat.openai_agents import (
    Agent,
    GuardrailFunctionOutput,
    HandoffInputData,
    HandoffOutputItem,
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    RunContextWrapper,
    RunHooks,
    Runner,
    SQLiteSession,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
    function_tool,
    handoff,
    input_guardrail,
    output_guardrail,
    tool_output_guardrail,
)
from loopwright.compat.openai_agents.decorators import tool, tool_input_guardrail
from loopwright.compat.openai_agents.extensions import handoff_filters
from loopwright.testing import ScriptedModel, text, tool_call


@function_tool
def lookup(order: str) -> str:
    """Look an order up."""
    return f"order {order}: shipped"


# --------------------------------------------------------------------------- handoffs


async def test_a_handoff_switches_the_agent_and_the_conversation_goes_on() -> None:
    billing_model = ScriptedModel([text("Billing here: refunded.")])
    billing = Agent(name="Billing", instructions="Refunds.", model=billing_model)
    triage_model = ScriptedModel([tool_call("transfer_to_billing")])
    triage = Agent(name="Triage", instructions="Route.", handoffs=[billing], model=triage_model)

    result = await Runner.run(triage, "I want a refund")

    assert result.final_output == "Billing here: refunded."
    assert result.last_agent is billing
    assert billing_model.requests[0].system == "Refunds."
    assert billing_model.requests[0].messages[0].content == "I want a refund"
    switches = [i for i in result.new_items if isinstance(i, HandoffOutputItem)]
    assert [(s.source_agent.name, s.target_agent.name) for s in switches] == [("Triage", "Billing")]


async def test_on_handoff_gets_the_run_context_and_the_typed_input() -> None:
    class Reason(BaseModel):
        reason: str

    seen: list[tuple[Any, str]] = []

    def note(ctx: RunContextWrapper[Any], data: Reason) -> None:
        seen.append((ctx.context, data.reason))

    billing = Agent(name="Billing", model=ScriptedModel([text("ok")]))
    escalate = handoff(billing, on_handoff=note, input_type=Reason)
    model = ScriptedModel([tool_call("transfer_to_billing", reason="double charge")])
    triage = Agent(name="Triage", handoffs=[escalate], model=model)

    await Runner.run(triage, "hi", context={"user": 7})

    assert seen == [({"user": 7}, "double charge")]


async def test_a_handoff_input_filter_sees_and_rewrites_the_history() -> None:
    seen: list[HandoffInputData] = []

    def keep_no_tools(data: HandoffInputData) -> HandoffInputData:
        seen.append(data)
        return handoff_filters.remove_all_tools(data)

    billing_model = ScriptedModel([text("ok")])
    billing = Agent(name="Billing", model=billing_model)
    model = ScriptedModel([tool_call("lookup", order="A1"), tool_call("transfer_to_billing")])
    triage = Agent(
        name="Triage",
        tools=[lookup],
        handoffs=[handoff(billing, input_filter=keep_no_tools)],
        model=model,
    )

    await Runner.run(triage, "where is A1?")

    assert [i.type for i in seen[0].pre_handoff_items] == [
        "tool_call_item",
        "tool_call_output_item",
    ]
    assert [m.content for m in billing_model.requests[0].messages] == ["where is A1?"]


# --------------------------------------------------------------------------- guardrails


async def test_a_tripped_input_guardrail_raises_with_the_guardrails_output() -> None:
    @input_guardrail
    async def no_homework(ctx: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info={"saw": input}, tripwire_triggered=True)

    agent = Agent(name="A", input_guardrails=[no_homework], model=ScriptedModel([text("x")]))

    with pytest.raises(InputGuardrailTripwireTriggered) as caught:
        await Runner.run(agent, "solve 2x = 4")

    assert caught.value.guardrail_result.output.output_info == {"saw": "solve 2x = 4"}


async def test_an_output_guardrail_sees_the_typed_output() -> None:
    class Answer(BaseModel):
        text: str

    @output_guardrail
    async def no_phone(ctx: Any, agent: Any, output: Answer) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(
            output_info=output.text, tripwire_triggered="555" in output.text
        )

    model = ScriptedModel([tool_call("StructuredOutput", text="call 555-1234")])
    agent = Agent(name="A", output_type=Answer, output_guardrails=[no_phone], model=model)

    with pytest.raises(OutputGuardrailTripwireTriggered) as caught:
        await Runner.run(agent, "hi")

    assert caught.value.guardrail_result.output.output_info == "call 555-1234"


async def test_a_rejecting_tool_input_guardrail_answers_the_model_instead() -> None:
    @tool_input_guardrail
    def no_acme(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        if "ACME" in data.context.tool_arguments:
            return ToolGuardrailFunctionOutput.reject_content("blocked: ACME")
        return ToolGuardrailFunctionOutput.allow()

    @tool(tool_input_guardrails=[no_acme])
    def send(body: str) -> str:
        """Send a message."""
        raise AssertionError("must not run")

    model = ScriptedModel([tool_call("send", body="ACME rocks"), text("I could not send it.")])
    result = await Runner.run(Agent(name="A", tools=[send], model=model), "send it")

    assert result.final_output == "I could not send it."
    assert model.requests[1].messages[-1].blocks[0].text == "blocked: ACME"  # type: ignore[union-attr]


async def test_a_raising_tool_output_guardrail_raises_its_tripwire() -> None:
    @tool_output_guardrail
    def no_ssn(data: Any) -> ToolGuardrailFunctionOutput:
        return ToolGuardrailFunctionOutput.raise_exception(
            output_info={"tool": data.context.tool_name}
        )

    lookup.tool_output_guardrails = [no_ssn]
    try:
        model = ScriptedModel([tool_call("lookup", order="A1")])
        with pytest.raises(ToolOutputGuardrailTripwireTriggered) as caught:
            await Runner.run(Agent(name="A", tools=[lookup], model=model), "hi")
    finally:
        lookup.tool_output_guardrails = None

    assert caught.value.output.output_info == {"tool": "lookup"}


# --------------------------------------------------------------------------- approvals


async def test_a_tool_needing_approval_pauses_the_run_until_approved() -> None:
    runs: list[str] = []

    @tool(needs_approval=True)
    def refund(order: str) -> str:
        """Refund an order."""
        runs.append(order)
        return "refunded"

    model = ScriptedModel([tool_call("refund", order="A1"), text("Done.")])
    agent = Agent(name="A", tools=[refund], model=model)

    paused = await Runner.run(agent, "refund A1")
    assert runs == [] and [i.name for i in paused.interruptions] == ["refund"]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    result = await Runner.run(agent, state)

    assert runs == ["A1"] and result.final_output == "Done."


async def test_a_rejected_call_gives_the_model_the_rejection_message() -> None:
    @tool(needs_approval=True)
    def refund(order: str) -> str:
        """Refund an order."""
        raise AssertionError("must not run")

    model = ScriptedModel([tool_call("refund", order="A1"), text("Not refunded.")])
    agent = Agent(name="A", tools=[refund], model=model)
    paused = await Runner.run(agent, "refund A1")
    state = paused.to_state()
    state.reject(paused.interruptions[0], rejection_message="a human said no")

    await Runner.run(agent, state)

    assert model.requests[1].messages[-1].blocks[0].text == "a human said no"  # type: ignore[union-attr]


async def test_resuming_without_a_decision_says_what_to_call() -> None:
    @tool(needs_approval=True)
    def refund(order: str) -> str:
        """Refund an order."""
        return "refunded"

    model = ScriptedModel([tool_call("refund", order="A1"), text("Done.")])
    agent = Agent(name="A", tools=[refund], model=model)
    paused = await Runner.run(agent, "refund A1")

    with pytest.raises(UserError, match=r"state\.approve\(item\) or state\.reject\(item\)"):
        await Runner.run(agent, paused.to_state())


# --------------------------------------------------------------------------- results


async def test_to_input_list_replays_the_run_as_the_next_input() -> None:
    first_model = ScriptedModel([tool_call("lookup", order="A1"), text("Shipped.")])
    agent = Agent(name="A", tools=[lookup], model=first_model)
    first = await Runner.run(agent, "where is A1?")
    second_model = ScriptedModel([text("You asked about A1.")])

    await Runner.run(
        agent.clone(model=second_model),
        [*first.to_input_list(), {"role": "user", "content": "what did I ask?"}],
    )

    kinds = [type(m).__name__ for m in second_model.requests[0].messages]
    assert kinds == [
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
    ]


async def test_usage_and_raw_responses_count_every_model_call() -> None:
    model = ScriptedModel([tool_call("lookup", order="A1"), text("Shipped.")])
    result = await Runner.run(Agent(name="A", tools=[lookup], model=model), "hi")

    assert result.context_wrapper.usage.requests == 2
    assert result.context_wrapper.usage.input_tokens == 20
    assert len(result.raw_responses) == 2


async def test_previous_response_id_continues_the_conversation() -> None:
    agent = Agent(name="A", model=ScriptedModel([text("Brazil.")]))
    first = await Runner.run(agent, "largest country in South America?")
    model = ScriptedModel([text("Brasília.")])

    await Runner.run(
        agent.clone(model=model), "its capital?", previous_response_id=first.last_response_id
    )

    assert model.requests[0].messages[0].content == "largest country in South America?"


async def test_an_unknown_previous_response_id_says_what_to_pass_instead() -> None:
    agent = Agent(name="A", model=ScriptedModel([]))
    with pytest.raises(UserError, match="to_input_list"):
        await Runner.run(agent, "hi", previous_response_id="resp_elsewhere")


async def test_a_sqlite_session_carries_the_conversation_between_runs() -> None:
    session = SQLiteSession("s1")
    await Runner.run(
        Agent(name="A", model=ScriptedModel([text("Hi Ann.")])), "I am Ann", session=session
    )
    model = ScriptedModel([text("Ann.")])

    await Runner.run(Agent(name="A", model=model), "who am I?", session=session)

    texts = [m.content for m in model.requests[0].messages]
    assert texts[0] == "I am Ann" and texts[-1] == "who am I?"
    assert len(await session.get_items()) == 4


async def test_streamed_text_deltas_are_the_openai_event_class() -> None:
    streamed = Runner.run_streamed(
        Agent(name="A", model=ScriptedModel([text("Hello there")])), "hi"
    )

    deltas = [
        e.data.delta
        async for e in streamed.stream_events()
        if e.type == "raw_response_event" and isinstance(e.data, ResponseTextDeltaEvent)
    ]

    assert "".join(deltas) == "Hello there" and streamed.final_output == "Hello there"


async def test_run_hooks_see_agent_llm_and_tool_events_in_order() -> None:
    events: list[str] = []

    class Recorder(RunHooks[Any]):
        async def on_agent_start(self, context: Any, agent: Any) -> None:
            events.append("agent_start")

        async def on_llm_start(self, context: Any, agent: Any, system: Any, items: Any) -> None:
            events.append("llm_start")

        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            events.append(f"tool_start:{tool.name}")

        async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
            events.append(f"tool_end:{result}")

        async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
            events.append(f"agent_end:{output}")

    model = ScriptedModel([tool_call("lookup", order="A1"), text("Shipped.")])
    await Runner.run(Agent(name="A", tools=[lookup], model=model), "hi", hooks=Recorder())

    assert events == [
        "agent_start",
        "llm_start",
        "tool_start:lookup",
        "tool_end:order A1: shipped",
        "llm_start",
        "agent_end:Shipped.",
    ]


def test_an_agent_is_generic_over_its_context_type() -> None:
    agent = Agent[dict[str, int]](name="A")
    assert agent.name == "A"


async def test_a_hosted_tool_says_what_to_use_instead() -> None:
    from loopwright.compat.openai_agents import WebSearchTool

    with pytest.raises(UserError, match="function tool"):
        WebSearchTool()


async def test_a_streamed_handoff_updates_the_agent_in_the_stream() -> None:
    from loopwright.compat.openai_agents import AgentUpdatedStreamEvent

    billing = Agent(name="Billing", model=ScriptedModel([text("billing here")]))
    triage = Agent(
        name="Triage", handoffs=[billing], model=ScriptedModel([tool_call("transfer_to_billing")])
    )

    streamed = Runner.run_streamed(triage, "refund please")
    updates = [
        e.new_agent.name
        async for e in streamed.stream_events()
        if isinstance(e, AgentUpdatedStreamEvent)
    ]

    assert updates == ["Triage", "Billing"]
    assert streamed.final_output == "billing here" and streamed.current_agent is billing


async def test_sampling_settings_without_an_equivalent_are_reported_not_dropped() -> None:
    from loopwright.compat.openai_agents import ModelSettings

    settings = ModelSettings(temperature=0.2, verbosity="low")
    agent = Agent(name="A", model_settings=settings, model=ScriptedModel([text("ok")]))

    with pytest.warns(UserWarning, match=r"ModelSettings\.temperature"):
        result = await Runner.run(agent, "hi")

    assert result.final_output == "ok"
