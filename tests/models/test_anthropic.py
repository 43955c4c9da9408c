"""Anthropic wire format: request bodies, caching, thinking, betas, errors."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types.beta.message_create_params import (
    MessageCreateParamsStreaming as BetaMessageCreateParamsStreaming,
)
from anthropic.types.message_count_tokens_params import MessageCountTokensParams
from anthropic.types.message_create_params import MessageCreateParamsStreaming

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.anthropic import CONTEXT_1M_BETA, AnthropicModel
from loopwright.models.anthropic_body import TASK_BUDGET_BETA
from loopwright.models.anthropic_body import anthropic_body as build_body
from loopwright.models.base import ModelRequest, ThinkingConfig
from loopwright.models.scripted import text, tool_call
from loopwright.testing.fake_anthropic import FakeAnthropicServer, stream_error

from ._validate import validate
from .conftest import GLOB_TOOL, READ_TOOL, collect

MODEL = "claude-sonnet-5-5"


def _model(server: FakeAnthropicServer, **options: Any) -> AnthropicModel:
    return AnthropicModel(MODEL, api_key="test-key", base_url=server.base_url, **options)


def _history() -> list[AssistantMessage | UserMessage]:
    return [
        UserMessage("Look at the image and read /a."),
        AssistantMessage(
            [
                ThinkingBlock("I should read it.", "sig-1", {"provider": "anthropic"}),
                ThinkingBlock("", None, {"provider": "anthropic", "redacted_data": "opaque"}),
                ThinkingBlock("foreign reasoning", None, {"provider": "openai", "item": {}}),
                TextBlock("Reading."),
                ToolUseBlock("toolu_1", "Read", {"path": "/a"}),
            ]
        ),
        UserMessage(
            [
                ToolResultBlock("toolu_1", [TextBlock("no such file")], is_error=True),
                ImageBlock("image/png", "iVBORw0KGgo="),
                TextBlock("Try again."),
            ]
        ),
    ]


def test_request_body_validates_against_the_sdk_types() -> None:
    request = ModelRequest(
        MODEL,
        "Stable part. Dynamic part.",
        _history(),
        [READ_TOOL, GLOB_TOOL],
        max_tokens=4096,
        effort="xhigh",
        thinking=ThinkingConfig("adaptive", display="summarized"),
        cache_prefix_chars=len("Stable part."),
    )
    body, betas = build_body(request, MODEL)
    assert betas == []
    validate(MessageCreateParamsStreaming, body)
    assert body["output_config"] == {"effort": "xhigh"}
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}


def test_cache_breakpoints_sit_on_tools_stable_prefix_and_latest_turn() -> None:
    request = ModelRequest(
        MODEL, "Stable. Dynamic.", _history(), [READ_TOOL, GLOB_TOOL], cache_prefix_chars=7
    )
    body, _ = build_body(request, MODEL)
    assert body["system"] == [
        {"type": "text", "text": "Stable.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": " Dynamic."},
    ]
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    last_turn = body["messages"][-1]["content"]
    assert last_turn[-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in b for b in last_turn[:-1])
    marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marked) == 1


def test_whole_system_prompt_is_cached_when_no_prefix_is_given() -> None:
    body, _ = build_body(ModelRequest(MODEL, "All stable.", [UserMessage("hi")]), MODEL)
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    body, _ = build_body(
        ModelRequest(MODEL, "None stable.", [UserMessage("hi")], cache_prefix_chars=0), MODEL
    )
    assert body["system"] == [{"type": "text", "text": "None stable."}]


def test_history_conversion_keeps_thinking_signatures_and_tool_errors() -> None:
    body, _ = build_body(ModelRequest(MODEL, "", _history()), MODEL)
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {
        "type": "thinking",
        "thinking": "I should read it.",
        "signature": "sig-1",
    }
    assert assistant[1] == {"type": "redacted_thinking", "data": "opaque"}
    assert [b["type"] for b in assistant] == [
        "thinking",
        "redacted_thinking",
        "text",
        "tool_use",
    ]  # the foreign (OpenAI) reasoning is not sent to Claude
    result, image, prose = body["messages"][2]["content"]
    assert result["is_error"] is True and result["tool_use_id"] == "toolu_1"
    assert result["content"] == [{"type": "text", "text": "no such file"}]
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    assert prose["text"] == "Try again."


def test_manual_thinking_budget_raises_max_tokens_above_it() -> None:
    request = ModelRequest(
        MODEL, "", [UserMessage("hi")], max_tokens=2000, thinking=ThinkingConfig("enabled", 8000)
    )
    body, _ = build_body(request, MODEL)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8000}
    assert body["max_tokens"] > 8000
    disabled, _ = build_body(
        ModelRequest(MODEL, "", [UserMessage("hi")], thinking=ThinkingConfig("disabled")), MODEL
    )
    assert disabled["thinking"] == {"type": "disabled"}


async def test_task_budget_goes_to_the_beta_endpoint_with_its_header() -> None:
    request = ModelRequest(
        MODEL,
        "s",
        [UserMessage("hi")],
        task_budget=200_000,
        metadata={"task_budget_remaining": 150_000},
    )
    with FakeAnthropicServer([text("ok")]) as server:
        await collect(_model(server), request)
    sent = server.requests[0]
    assert TASK_BUDGET_BETA in sent.headers["anthropic-beta"]
    assert sent.body["output_config"]["task_budget"] == {
        "type": "tokens",
        "total": 200_000,
        "remaining": 150_000,
    }
    validate(BetaMessageCreateParamsStreaming, sent.body)


async def test_thinking_signature_round_trips_unchanged() -> None:
    with FakeAnthropicServer(
        [tool_call("Read", path="/a").with_(thinking="plan"), text("done")]
    ) as server:
        model = _model(server)
        first = ModelRequest(MODEL, "s", [UserMessage("go")], [READ_TOOL])
        _, response = await collect(model, first)
        thinking = response.content[0]
        assert isinstance(thinking, ThinkingBlock) and thinking.signature
        call = response.content[-1]
        assert isinstance(call, ToolUseBlock)
        history = [
            *first.messages,
            AssistantMessage(response.content),
            UserMessage([ToolResultBlock(call.id, "contents")]),
        ]
        await collect(model, ModelRequest(MODEL, "s", history, [READ_TOOL]))
    sent = server.requests[1].body["messages"][1]["content"][0]
    assert sent == {"type": "thinking", "thinking": "plan", "signature": thinking.signature}
    for recorded in server.requests:
        validate(MessageCreateParamsStreaming, recorded.body)


async def test_context_window_stop_reason_and_pause_turn() -> None:
    steps = [
        text("cut").with_(stop_reason="context_window_exceeded"),
        text("paused").with_(stop_reason="pause_turn"),
    ]
    with FakeAnthropicServer(steps) as server:
        model = _model(server)
        _, first = await collect(model, ModelRequest(MODEL, "", [UserMessage("a")]))
        _, second = await collect(model, ModelRequest(MODEL, "", [UserMessage("b")]))
    assert first.stop_reason == "context_window_exceeded"
    assert second.stop_reason == "pause_turn"


async def test_mid_stream_error_kinds() -> None:
    with FakeAnthropicServer(
        [stream_error(error_type="overloaded_error"), stream_error(error_type="api_error")]
    ) as server:
        model = _model(server)
        kinds = []
        for _ in range(2):
            with pytest.raises(ModelError) as caught:
                await collect(model, ModelRequest(MODEL, "", [UserMessage("a")]))
            kinds.append(caught.value.kind)
    assert kinds == ["overloaded", "stream"]


async def test_count_tokens_uses_the_endpoint() -> None:
    with FakeAnthropicServer([]) as server:
        model = _model(server)
        request = ModelRequest(MODEL, "system", [UserMessage("count me")], [READ_TOOL])
        counted = await model.count_tokens(request)
    assert counted > 0
    assert server.requests[0].path == "/v1/messages/count_tokens"
    validate(MessageCountTokensParams, server.requests[0].body)


async def test_1m_suffix_selects_the_long_context_beta() -> None:
    with FakeAnthropicServer([text("ok")]) as server:
        model = AnthropicModel("claude-sonnet-4-5[1m]", api_key="k", base_url=server.base_url)
        assert model.context_window == 1_000_000 and model.name == "claude-sonnet-4-5[1m]"
        await collect(model, ModelRequest(MODEL, "", [UserMessage("hi")]))
    sent = server.requests[0]
    assert sent.body["model"] == "claude-sonnet-4-5"
    assert CONTEXT_1M_BETA in sent.headers["anthropic-beta"]


def test_context_window_by_model() -> None:
    assert AnthropicModel("claude-opus-5-5", api_key="k").context_window == 1_000_000
    assert AnthropicModel("claude-haiku-4-5", api_key="k").context_window == 200_000
    assert AnthropicModel("claude-x", api_key="k", context_window=5).context_window == 5
