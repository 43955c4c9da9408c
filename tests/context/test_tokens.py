"""Context accounting: provider counts when known, a documented estimate otherwise."""

from __future__ import annotations

import pytest

from loopwright.context import ContextMeter, context_window, estimate_tokens
from loopwright.context.tokens import estimate_text_tokens, register_context_window
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ToolSpec


def test_estimate_is_about_four_bytes_per_token() -> None:
    assert estimate_text_tokens("a" * 4000) == 1000
    assert estimate_text_tokens("") == 0


def test_cjk_text_counts_closer_to_a_token_per_character() -> None:
    assert estimate_text_tokens("日本語" * 100) == 225  # 900 bytes


def test_request_estimate_includes_system_prompt_and_tool_schemas() -> None:
    messages = [UserMessage("hello there")]
    bare = estimate_tokens(messages)
    spec = ToolSpec(
        "Read", "Read a file", {"type": "object", "properties": {"p": {"type": "string"}}}
    )
    assert estimate_tokens(messages, system="x" * 400, tools=[spec]) > bare + 100


def test_tool_calls_and_results_count() -> None:
    call = AssistantMessage([ToolUseBlock("c", "Bash", {"command": "x" * 400})])
    result = UserMessage([ToolResultBlock("c", "y" * 4000)])
    assert estimate_tokens([call]) > 100 and estimate_tokens([result]) > 1000


def test_meter_uses_the_providers_count_plus_estimates_of_later_messages() -> None:
    meter = ContextMeter(window=10_000)
    reply = AssistantMessage([TextBlock("ok")], usage=Usage(900, 100))
    history: list[ConversationMessage] = [UserMessage("task"), reply]
    meter.record(reply.usage, history)
    assert meter.count(history).tokens == 1000 and meter.count(history).estimated == 0
    history.append(UserMessage("z" * 400))
    counted = meter.count(history)
    assert counted.measured == 1000 and counted.estimated == 104
    assert counted.fraction == pytest.approx(0.1104)


def test_meter_estimates_everything_when_the_history_was_rewritten() -> None:
    meter = ContextMeter(window=10_000)
    reply = AssistantMessage([TextBlock("ok")], usage=Usage(5000, 10))
    meter.record(reply.usage, [UserMessage("task"), reply])
    compacted = [UserMessage("task"), UserMessage("summary")]
    assert meter.count(compacted).measured == 0
    assert meter.count(compacted).tokens == estimate_tokens(compacted)


def test_meter_ignores_responses_without_usage() -> None:
    meter = ContextMeter(window=1000)
    history = [UserMessage("task"), AssistantMessage([TextBlock("ok")])]
    meter.record(Usage(), history)
    assert meter.count(history).measured == 0


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("anthropic:claude-sonnet-4-5", 200_000),
        ("claude-opus-4-1", 200_000),
        ("claude-sonnet-4-5[1m]", 1_000_000),
        ("openai:gpt-5", 400_000),
        ("openai:gpt-5-mini", 400_000),
        ("gpt-4.1-mini", 1_047_576),
        ("openai-chat:gpt-4o", 128_000),
        ("openai-chat:llama3.1:8b", 128_000),
        ("scripted", 128_000),
    ],
)
def test_context_window_table(model: str, window: int) -> None:
    assert context_window(model) == window


def test_context_window_can_be_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    register_context_window("my-local-model", 32_768)
    assert context_window("openai-chat:my-local-model-q4") == 32_768
    monkeypatch.setenv("LOOPWRIGHT_CONTEXT_WINDOW", "8000")
    assert context_window("scripted") == 8000
