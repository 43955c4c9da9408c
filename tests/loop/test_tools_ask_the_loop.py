"""How tools and the loop talk, through the real loop: a tool reads the session's typed
services and asks the loop for something only through its result's ``request``."""

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from loopwright import Options, PermissionResultAllow, query, tool
from loopwright.guardrails import Guardrail, GuardrailInput, GuardrailVerdict
from loopwright.messages import Message, ResultMessage, SystemMessage, ToolResultBlock
from loopwright.subagents.handoffs import HandoffAgent, handoff
from loopwright.testing import ScriptedModel, text, tool_call, tool_calls
from loopwright.tools.ask_user import NO_CALLBACK
from loopwright.tools.base import ToolContext, ToolResult, ToolServices
from loopwright.tools.results import StopBatch
from loopwright.tools.web_search import NOT_CONFIGURED
from support import base_options, collect, look, ran, tool_results, touch

BILLING = HandoffAgent(name="Billing", instructions="You handle refunds.", tools=[])


def result_of(messages: list[Message]) -> ResultMessage:
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    return result


async def test_a_handoff_tools_request_switches_the_agent_after_its_batch() -> None:
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Billing here.")])

    messages = await collect("refund", base_options(model, tools=[handoff(BILLING)]))

    switch = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "handoff"]
    assert [m.data["to_agent"] for m in switch] == ["Billing"]
    assert model.requests[1].system == "You handle refunds."
    assert result_of(messages).result == "Billing here."


async def test_a_handoff_whose_output_a_guardrail_rejects_still_switches() -> None:
    def reject(data: GuardrailInput) -> GuardrailVerdict:
        return GuardrailVerdict(reject_message="(handoff noted)")

    guard = Guardrail("tool_output", reject, tools=["transfer_to_billing"])
    model = ScriptedModel([tool_call("transfer_to_billing"), text("Billing here.")])

    messages = await collect(
        "refund", base_options(model, tools=[handoff(BILLING)], guardrails=[guard])
    )

    assert [r.text for r in tool_results(messages)] == ["(handoff noted)"]
    assert model.requests[1].system == "You handle refunds."


async def test_a_tripped_tool_guardrail_ends_the_run_after_its_batch() -> None:
    ran.clear()

    def no_touching(data: GuardrailInput) -> GuardrailVerdict:
        return GuardrailVerdict(tripped=data.tool_name == "touch", info="read only today")

    guard = Guardrail("tool_input", no_touching, name="read_only_day")
    model = ScriptedModel([tool_calls([("touch", {"path": "a"}), ("look", {"path": "b"})])])

    messages = await collect("go", base_options(model, guardrails=[guard]))

    result = result_of(messages)
    assert result.subtype == "error_guardrail_tripped"
    assert result.errors == ["tool_input guardrail 'read_only_day' tripped"]
    notice = messages[-2]
    assert isinstance(notice, SystemMessage) and notice.subtype == "guardrail_tripped"
    assert notice.data["info"] == "read only today"
    assert ran == ["look b"]  # the batch was answered; the model was not asked again
    assert len(model.requests) == 1


@tool
def replan() -> ToolResult:
    """Say that the plan changed."""
    return ToolResult("the files moved", request=StopBatch("the files moved"))


async def test_a_tool_can_stop_the_rest_of_its_batch_and_the_run_goes_on() -> None:
    ran.clear()
    model = ScriptedModel(
        [tool_calls([("replan", {}), ("touch", {"path": "a"})]), text("Replanning.")]
    )

    messages = await collect("go", base_options(model, tools=[replan, touch]))

    assert ran == []
    skipped = tool_results(messages)[1]
    assert skipped.is_error
    assert skipped.text == (
        "Not run: an earlier call stopped the rest of this response (the files moved)."
    )
    assert result_of(messages).result == "Replanning."


seen_models: list[bool] = []


@tool
def meddle(ctx: ToolContext) -> str:
    """Try to change what the session offers tools."""
    try:
        ctx.services.model = None  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:  # pragma: no cover - the assertion below reports it
        return "services changed"
    ctx.services = ToolServices()  # its own context only
    return "tried"


@tool
def summarise(ctx: ToolContext) -> str:
    """Use the session's model."""
    seen_models.append(ctx.services.model is not None)
    return "ok"


async def test_a_tool_cannot_change_the_services_other_calls_see() -> None:
    seen_models.clear()
    model = ScriptedModel([tool_call("meddle"), tool_call("summarise"), text("done")])

    messages = await collect("go", base_options(model, tools=[meddle, summarise]))

    assert [r.text for r in tool_results(messages)] == ["tried", "ok"]
    assert seen_models == [True]
    assert result_of(messages).subtype == "success"


QUESTION = {
    "question": "Which?",
    "header": "Pick",
    "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}],
    "multiSelect": False,
}


@pytest.mark.parametrize(
    ("name", "call_input", "message"),
    [
        ("AskUserQuestion", {"questions": [QUESTION]}, NO_CALLBACK),
        ("WebSearch", {"query": "python"}, NOT_CONFIGURED),
    ],
)
async def test_a_tool_whose_service_the_session_lacks_answers_with_what_to_configure(
    name: str, call_input: dict[str, Any], message: str
) -> None:
    model = ScriptedModel([tool_call(name, **call_input), text("ok")])

    messages = await collect("go", base_options(model, tools=[name, look]))

    answer = tool_results(messages)[0]
    assert isinstance(answer, ToolResultBlock) and answer.is_error
    assert message in answer.text
    assert result_of(messages).subtype == "success"


async def test_an_approved_handoff_switches_the_agent_when_its_batch_is_answered(
    tmp_path: Path,
) -> None:
    def opts(model: ScriptedModel, **extra: Any) -> Options:
        # Persisted: the answer comes in a later run, which reads the waiting batch back.
        return Options(
            model=model,
            tools=[handoff(BILLING)],
            defer_tools=["transfer_to_billing"],
            session_store=f"sqlite:{tmp_path / 's.db'}",
            cwd=str(tmp_path),
            setting_sources=[],
            permission_mode="bypassPermissions",
            **extra,
        )

    first = result_of(
        await collect("refund", opts(ScriptedModel([tool_call("transfer_to_billing")])))
    )
    assert first.subtype == "pending_approval", first.errors
    call_id = first.pending_approvals[0]["tool_use_id"]
    model = ScriptedModel([text("Billing here.")])

    resumed = opts(model, resume=first.session_id, approvals={call_id: PermissionResultAllow()})
    messages = [m async for m in query(None, resumed)]

    assert model.requests[0].system == "You handle refunds."
    assert result_of(messages).result == "Billing here."
