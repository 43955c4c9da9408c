"""Small things a newcomer notices: clean cost numbers, errors that say a thing once and
speak the caller's language, /compact that never grows a chat, a demo that leaves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopwright import Client, Options, query, run
from loopwright.cost import add_costs, cost_of
from loopwright.errors import ConfigurationError, ResultError
from loopwright.messages import ResultMessage, SystemMessage, Usage
from loopwright.testing import ScriptedModel, text, tool_call


def test_summed_costs_carry_no_float_noise() -> None:
    assert 0.1 + 0.2 != 0.3  # what a plain float sum gives
    assert repr(add_costs(0.1, 0.2)) == "0.3"
    total: float | None = 0.0
    for _ in range(10):
        total = add_costs(total, 0.000258)
    assert repr(total) == "0.00258"
    assert add_costs(None, 0.1) is None and add_costs(0.1, None) is None


def test_a_priced_run_reports_a_cost_that_prints_cleanly() -> None:
    usage = Usage(input_tokens=860, output_tokens=0)
    one = cost_of("claude-sonnet-4-5", usage)
    assert one is not None
    total = 0.0
    for _ in range(3):
        total = add_costs(total, one)
    assert total is not None and len(json.dumps(total)) <= 14


async def test_result_error_says_the_subtype_once() -> None:
    model = ScriptedModel([tool_call("TodoWrite", todos=[]), tool_call("TodoWrite", todos=[])])
    options = Options(model=model, max_turns=1, raise_on_error=True, persist_session=False)
    with pytest.raises(ResultError) as caught:
        async for _ in query("go", options):
            pass
    message = str(caught.value)
    assert message.startswith("agent run ended with error_max_turns")
    assert message.count("error_max_turns") == 1


async def test_a_missing_model_from_python_names_the_python_knob(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError) as caught:
        await run("hi", Options(persist_session=False))
    assert "Options(model=" in str(caught.value)
    assert "pass --model" not in str(caught.value)


async def test_compact_on_a_short_chat_keeps_it_as_it_is() -> None:
    summary = "A long summary of the conversation so far. " * 40
    model = ScriptedModel([text("hello"), text(summary), text("still here")])
    async with Client(Options(model=model, persist_session=False)) as client:
        await client.query("hi")
        [m async for m in client.receive_response()]
        await client.query("/compact")
        compacted = [m async for m in client.receive_response()]
        await client.query("and now?")
        after = [m async for m in client.receive_response()]
    boundary = next(
        m for m in compacted if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"
    )
    assert boundary.data["post_tokens"] <= boundary.data["pre_tokens"]
    result = compacted[-1]
    assert isinstance(result, ResultMessage) and "Nothing to compact" in (result.result or "")
    last_request = model.requests[-1]
    assert summary.strip() not in json.dumps([m.to_dict() for m in last_request.messages])
    assert isinstance(after[-1], ResultMessage) and after[-1].result == "still here"


async def test_the_demo_leaves_no_transcript_behind(isolated_loopwright_home: Path) -> None:
    from rich.console import Console

    from loopwright.cli.demo import run_demo

    assert await run_demo(Console(file=open("/dev/null", "w"))) == 0  # noqa: SIM115
    left = [p for p in isolated_loopwright_home.rglob("*") if p.is_file()]
    assert left == []
