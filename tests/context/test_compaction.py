"""Compaction stages, the summariser request, and the circuit breaker."""

from __future__ import annotations

import pytest

from loopwright.context import (
    CompactionBreaker,
    CompactionError,
    CompactionSettings,
    clear_old_tool_results,
    compact,
    estimate_tokens,
    should_compact,
    summarise,
)
from loopwright.context.history import recent_cut, safe_cut_points
from loopwright.context.render import SUMMARY_HEADER
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.stores import check_pairing
from loopwright.testing import ScriptedModel, error, text

TASK = UserMessage("Refactor the parser in src/parse.py and keep the tests green.")


def _turn(n: int, size: int = 5000) -> list[ConversationMessage]:
    call = ToolUseBlock(f"c{n}", "Read", {"file_path": f"/src/f{n}.py"})
    return [
        AssistantMessage([TextBlock(f"reading f{n}"), call], model="scripted"),
        UserMessage([ToolResultBlock(call.id, f"line of f{n}\n" * (size // 12))]),
    ]


def _history(turns: int, size: int = 5000) -> list[ConversationMessage]:
    history: list[ConversationMessage] = [TASK]
    for n in range(turns):
        history.extend(_turn(n, size))
    return history


def test_should_compact_at_the_threshold() -> None:
    assert should_compact(8000, 10_000) and not should_compact(7999, 10_000)
    assert should_compact(5000, 10_000, threshold=0.5)


def test_safe_cut_points_never_fall_between_a_call_and_its_result() -> None:
    history = _history(2)
    assert safe_cut_points(history) == [True, True, False, True, False, True]
    assert recent_cut(history, 1) == 3 and recent_cut(history, 0) == 5


def test_stage_one_stubs_old_large_results_and_keeps_recent_ones() -> None:
    history = _history(6)
    cleared = clear_old_tool_results(history, keep_recent_turns=2, min_chars=1000)
    assert [m.uuid for m in cleared] == [m.uuid for m in history]
    results = [b for m in cleared if isinstance(m, UserMessage) for b in m.blocks]
    texts = [b.text for b in results if isinstance(b, ToolResultBlock)]
    assert all(t.startswith("[tool result cleared to save context: ") for t in texts[:4])
    assert all(t.startswith("line of") for t in texts[4:])
    assert check_pairing(cleared) == []
    assert estimate_tokens(cleared) < estimate_tokens(history) / 2


def test_stage_one_leaves_small_results_alone() -> None:
    history = _history(5, size=100)
    cleared = clear_old_tool_results(history, keep_recent_turns=1, min_chars=1000)
    assert cleared == history


async def test_summarise_keeps_the_task_the_summary_and_recent_turns_verbatim() -> None:
    history = _history(6)
    summariser = ScriptedModel([text("Read f0..f3; parser uses regexes.")])
    result = await summarise(history, summariser, keep_recent_turns=2)
    assert result.messages[0] == TASK
    assert isinstance(result.messages[1].content, str)
    assert result.messages[1].content.startswith(SUMMARY_HEADER)
    assert result.messages[2:] == history[-4:]
    assert check_pairing(result.messages) == []
    assert result.pre_tokens > result.post_tokens and result.stage == "summarised"
    assert result.boundary_data() == {
        "trigger": "auto",
        "pre_tokens": result.pre_tokens,
        "post_tokens": result.post_tokens,
        "stage": "summarised",
    }
    summariser.assert_complete()


async def test_summariser_request_carries_instructions_focus_and_history() -> None:
    summariser = ScriptedModel([text("summary")])
    await summarise(
        _history(4),
        summariser,
        instructions="Always list every file path touched.",
        focus="the parser's error handling",
        trigger="manual",
    )
    request = summariser.requests[0]
    assert "Always list every file path touched." in request.system
    assert "the parser's error handling" in request.system
    assert request.tools == [] and len(request.messages) == 1
    prompt = request.messages[0].content
    assert (
        isinstance(prompt, str) and "ASSISTANT called Read" in prompt and "RESULT of Read" in prompt
    )


async def test_a_second_compaction_feeds_the_first_summary_to_the_summariser() -> None:
    first = await summarise(_history(4), ScriptedModel([text("FIRST-SUMMARY")]))
    later = [*first.messages, *_turn(10), *_turn(11), *_turn(12)]
    summariser = ScriptedModel([text("second")])
    second = await summarise(later, summariser, keep_recent_turns=1)
    prompt = summariser.requests[0].messages[0].content
    assert isinstance(prompt, str) and "FIRST-SUMMARY" in prompt
    assert second.messages[0] == TASK and check_pairing(second.messages) == []


async def test_history_with_only_recent_turns_still_compacts_by_keeping_fewer() -> None:
    result = await summarise(_history(2), ScriptedModel([text("s")]), keep_recent_turns=5)
    assert result.messages[0] == TASK and check_pairing(result.messages) == []


async def test_nothing_to_compact_is_a_clear_error() -> None:
    with pytest.raises(CompactionError, match="nothing to compact"):
        await summarise([TASK], ScriptedModel([]))


async def test_summariser_failure_becomes_a_compaction_error() -> None:
    with pytest.raises(CompactionError, match="summariser call failed"):
        await summarise(_history(4), ScriptedModel([error("overloaded", kind="overloaded")]))


async def test_empty_summary_is_refused() -> None:
    with pytest.raises(CompactionError, match="no text"):
        await summarise(_history(4), ScriptedModel([text("   ")]))


async def test_compact_stops_after_stage_one_when_that_is_enough() -> None:
    history = _history(8)
    model = ScriptedModel([])  # any model call would fail the test
    result = await compact(history, model, window=20_000)
    assert result.stage == "cleared" and result.post_tokens <= 0.6 * 20_000
    assert result.messages[0] == TASK


async def test_manual_compact_always_summarises() -> None:
    result = await compact(
        _history(8), ScriptedModel([text("s")]), window=1_000_000, trigger="manual", focus="x"
    )
    assert result.stage == "summarised" and result.trigger == "manual"


async def test_breaker_opens_after_repeated_failures_and_closes_on_success() -> None:
    breaker = CompactionBreaker(max_failures=2)
    settings = CompactionSettings()
    for _ in range(2):
        assert breaker.allow()
        try:
            await compact(_history(6), ScriptedModel([error()]), window=4000, settings=settings)
        except CompactionError as exc:
            breaker.record_failure(exc)
    assert not breaker.allow() and "2 failures in a row" in breaker.describe()
    breaker.record_success()
    assert breaker.allow()
