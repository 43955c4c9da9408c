"""The loop's steps are values: deciders read the run's counters and name why they chose
a step, ``advance`` is the one place the counters move, the result's text is read from
the conversation, and ``_run`` is the loop's only generator."""

import ast
from pathlib import Path

import loopwright.loop
from loopwright import run
from loopwright.loop.decide import next_step
from loopwright.loop.steps import (
    MAX_TEXT_CONTINUATIONS,
    Ask,
    Finish,
    RunState,
    RunTools,
    advance,
    final_text,
)
from loopwright.messages import AssistantMessage, TextBlock, ToolResultBlock, Usage, UserMessage
from loopwright.models.base import ModelResponse
from loopwright.session.assemble import assemble_session
from loopwright.testing import ScriptedModel, text, tool_calls
from support import base_options, look


def _response(words: str, stop_reason: str) -> ModelResponse:
    return ModelResponse(
        content=[TextBlock(words)], stop_reason=stop_reason, model="m", usage=Usage()
    )


async def test_a_decider_names_its_reason_and_leaves_the_counters_alone() -> None:
    session = await assemble_session(base_options(ScriptedModel([]), tools=[]))
    before = RunState()
    cut = _response("half", "max_tokens")
    try:
        first = next_step(session.agent, before, cut)
        again = next_step(session.agent, before, cut)
    finally:
        await session.aclose()
    assert isinstance(first, Ask) and first.reason == "continue_cut_text"
    assert isinstance(again, Ask) and again.reason == first.reason
    assert before == RunState(started=before.started)  # nothing moved


async def test_advance_counts_each_ask_by_its_reason() -> None:
    start = RunState()
    continued = advance(start, Ask("continue_cut_text"))
    assert (continued.continuations, start.continuations) == (1, 0)
    assert advance(start, Ask("structured_retry")).structured_attempts == 1
    assert advance(start, Ask("stop_hook_blocked")).stop_blocks == 1
    assert advance(start, Ask("compacted_after_overflow")).reactive_compaction_tried
    retried = advance(start, Ask("retry_cut_tool_call", max_tokens=400))
    assert retried.cut_tool_call_retried and retried.max_tokens_override == 400
    paused = advance(advance(start, Ask("pause_turn")), Ask("pause_turn"))
    assert paused.pauses == 2 and advance(paused, Ask("after_tools")).pauses == 0
    assert advance(start, RunTools([])).num_turns == 1
    assert advance(start, Finish("success", "end_turn")) is start


async def test_text_cut_again_and_again_is_continued_a_bounded_number_of_times() -> None:
    cuts = [text(f"part{i} ", stop_reason="max_tokens") for i in range(MAX_TEXT_CONTINUATIONS + 3)]
    model = ScriptedModel(cuts)
    result = await run("go", base_options(model, tools=[]))
    parts = "".join(f"part{i} " for i in range(MAX_TEXT_CONTINUATIONS + 1))
    assert (result.subtype, result.stop_reason, result.result) == ("success", "max_tokens", parts)
    assert len(model.requests) == MAX_TEXT_CONTINUATIONS + 1


async def test_the_result_is_the_last_answer_not_the_text_before_the_tools() -> None:
    said_first = tool_calls([("look", {"path": "a"})], text="let me look first")
    model = ScriptedModel([said_first, text("it is empty")])
    result = await run("go", base_options(model, tools=[look]))
    assert (result.subtype, result.result, result.num_turns) == ("success", "it is empty", 1)


async def test_a_paused_answer_is_one_result() -> None:
    model = ScriptedModel([text("working, ", stop_reason="pause_turn"), text("finished")])
    result = await run("go", base_options(model, tools=[]))
    assert result.result == "working, finished"


def test_final_text_stops_at_the_last_message_that_is_not_a_continuation() -> None:
    answer = AssistantMessage(content=[TextBlock("old answer")], model="m")
    results = UserMessage([ToolResultBlock("t1", "ok")])
    newest = AssistantMessage(content=[TextBlock("new answer")], model="m")
    assert final_text([UserMessage("go"), answer, results, newest]) == "new answer"
    assert final_text([UserMessage("go"), answer, results]) == ""


def test_run_is_the_only_generator_of_the_loop() -> None:
    package = Path(loopwright.loop.__file__).parent
    generators: list[str] = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                own = [n for n in ast.walk(node) if isinstance(n, ast.Yield | ast.YieldFrom)]
                if own:
                    generators.append(f"{path.stem}.{node.name}")
    # agent_loop records and passes on what _run yields; nothing else streams.
    assert generators == ["run.agent_loop", "run._run"]


def test_only_run_moves_the_run_state() -> None:
    package = Path(loopwright.loop.__file__).parent
    callers: list[str] = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                calls = [
                    n
                    for n in ast.walk(node)
                    if isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Name)
                    and n.func.id in ("advance", "RunState")
                ]
                if calls:
                    callers.append(f"{path.stem}.{node.name}")
    # RunState is frozen; a new one comes from advance(), and only _run takes steps.
    assert callers == ["run._run"]
