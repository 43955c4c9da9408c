"""Review findings on the providers, through the real SDK clients and the fake servers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from anthropic.types.message_create_params import MessageCreateParamsStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

from loopwright.cost import cost_of, price_of
from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest, RetryNotice
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.retry import RetryingModel
from loopwright.models.scripted import text
from loopwright.testing._fake_http import Exchange, FakeServer, SSEEvent
from loopwright.testing.fake_anthropic import FakeAnthropicServer, http_error, stream_error
from loopwright.testing.fake_openai import FakeOpenAIServer

from ._validate import validate
from .conftest import collect

MODEL = "claude-sonnet-5-5"


async def _no_sleep(_: float) -> None:
    return None


@pytest.mark.parametrize(
    ("error_type", "message", "kind"),
    [
        (
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000",
            "context_window_exceeded",
        ),
        ("invalid_request_error", "messages.1: unexpected tool_use_id", "invalid_request"),
        ("authentication_error", "invalid x-api-key", "authentication"),
        ("rate_limit_error", "slow down", "rate_limit"),
        ("api_error", "internal", "stream"),
    ],
)
async def test_an_anthropic_mid_stream_error_keeps_the_kind_of_its_type(
    error_type: str, message: str, kind: str
) -> None:
    with FakeAnthropicServer([stream_error(error_type=error_type, message=message)]) as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        with pytest.raises(ModelError) as caught:
            await collect(model, ModelRequest(MODEL, "", [UserMessage("a")]))
        await model.aclose()
    assert caught.value.kind == kind


async def test_a_request_refused_mid_stream_is_not_retried() -> None:
    refused = stream_error(error_type="invalid_request_error", message="bad request")
    with FakeAnthropicServer([refused, text("never asked for")]) as server:
        inner = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        model = RetryingModel(inner, sleep=_no_sleep)
        events: list[object] = []
        with pytest.raises(ModelError):
            async for event in model.stream(ModelRequest(MODEL, "", [UserMessage("a")])):
                events.append(event)
        await model.aclose()
        served = server.served
    assert not any(isinstance(e, RetryNotice) for e in events)
    assert served == 1


async def test_foreign_tool_ids_are_sent_to_anthropic_in_a_form_it_accepts() -> None:
    # Some OpenAI-compatible servers mint ids like "functions.Read:0"; a session that
    # falls back (or switches) to Claude must still be accepted, with pairs intact.
    history: list[AssistantMessage | UserMessage] = [
        UserMessage("read both"),
        AssistantMessage(
            [
                ToolUseBlock("functions.Read:0", "Read", {"path": "/a"}),
                ToolUseBlock("functions.Read.0", "Read", {"path": "/b"}),
            ]
        ),
        UserMessage(
            [ToolResultBlock("functions.Read:0", "a"), ToolResultBlock("functions.Read.0", "b")]
        ),
    ]
    with FakeAnthropicServer([text("done")]) as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        await collect(model, ModelRequest(MODEL, "", history))
        await model.aclose()
        body = server.requests[0].body
    calls = [b["id"] for b in body["messages"][1]["content"]]
    results = [b["tool_use_id"] for b in body["messages"][2]["content"]]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", call_id) for call_id in calls)
    assert calls == results and len(set(calls)) == 2
    validate(MessageCreateParamsStreaming, body)


def test_a_colon_inside_a_model_id_is_not_a_provider_prefix() -> None:
    # A fine-tuned model bills more than its base model: unknown, so None, not a guess.
    assert cost_of("ft:gpt-4o-mini-2024-07-18:acme::abc123", Usage(1000, 1000)) is None
    assert price_of("openai-chat:gpt-4o") == price_of("gpt-4o") is not None
    assert price_of("anthropic:claude-haiku-4-5") == price_of("claude-haiku-4-5") is not None


class _SameIndexServer(FakeServer):
    """A compatible server that numbers both of its parallel tool calls 0."""

    def handle(self, exchange: Exchange) -> None:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> SSEEvent:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            body = {"id": "c1", "object": "chat.completion.chunk", "created": 0}
            return (None, {**body, "model": "local", "choices": [choice]})

        def call(call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
            function = {"name": name, "arguments": arguments} if name else {"arguments": arguments}
            delta: dict[str, Any] = {"index": 0, "function": function}
            if call_id is not None:
                delta.update(id=call_id, type="function")
            return {"tool_calls": [delta]}

        exchange.send_sse(
            [
                chunk({"role": "assistant", "content": None}),
                chunk(call("a", "Read", '{"path": ')),
                chunk(call(None, None, '"/a"}')),
                chunk(call("b", "Read", '{"path": "/b"}')),
                chunk({}, "tool_calls"),
                (None, "[DONE]"),
            ]
        )


async def test_chat_calls_that_share_an_index_stay_separate_calls() -> None:
    with _SameIndexServer() as server:
        model = OpenAIChatModel("local", base_url=f"{server.url}/v1")
        _, response = await collect(model, ModelRequest("local", "", [UserMessage("read")]))
        await model.aclose()
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    assert [(c.id, c.input) for c in calls] == [("a", {"path": "/a"}), ("b", {"path": "/b"})]


@pytest.mark.parametrize("path", ["responses", "chat"])
async def test_an_openai_account_out_of_quota_is_not_retried(path: str) -> None:
    quota = http_error(429, "insufficient_quota", "You exceeded your current quota")
    with FakeOpenAIServer([quota, text("never asked for")]) as server:
        maker = OpenAIResponsesModel if path == "responses" else OpenAIChatModel
        model = RetryingModel(
            maker("gpt-5.5", api_key="k", base_url=server.base_url), sleep=_no_sleep
        )
        with pytest.raises(ModelError) as caught:
            async for _ in model.stream(ModelRequest("gpt-5.5", "", [UserMessage("a")])):
                pass
        await model.aclose()
        served = server.served
    assert served == 1
    assert "credit" in str(caught.value)


async def test_whitespace_only_text_is_not_sent_to_anthropic() -> None:
    history: list[AssistantMessage | UserMessage] = [
        UserMessage("list the files"),
        AssistantMessage([TextBlock("\n\n"), ToolUseBlock("toolu_1", "Glob", {"pattern": "*"})]),
        UserMessage([ToolResultBlock("toolu_1", [TextBlock("  "), TextBlock("a.py")])]),
    ]
    with FakeAnthropicServer([text("done")]) as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        await collect(model, ModelRequest(MODEL, "", history))
        await model.aclose()
        body = server.requests[0].body
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]
    assert body["messages"][2]["content"][0]["content"] == [{"type": "text", "text": "a.py"}]


async def test_chat_never_sends_two_user_turns_in_a_row() -> None:
    # A prompt after a run that failed before any answer, then a compaction summary after
    # the task: strict chat templates (Mistral, Gemma on vLLM/llama.cpp) refuse such turns.
    history: list[AssistantMessage | UserMessage] = [
        UserMessage("fix the bug"),
        UserMessage("fix the bug, please"),
        UserMessage([TextBlock("see this"), ImageBlock("image/png", "iVBORw0KGgo=")]),
    ]
    with FakeOpenAIServer([text("ok")]) as server:
        model = OpenAIChatModel("local", base_url=server.base_url)
        await collect(model, ModelRequest("local", "", history))
        await model.aclose()
        sent = server.requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["user"]
    assert [p["type"] for p in sent[0]["content"]] == ["text", "text", "image_url"]
    assert sent[0]["content"][0]["text"] == "fix the bug\n\nfix the bug, please"
    validate(CompletionCreateParamsStreaming, server.requests[0].body)


def test_chat_against_openais_own_url_uses_max_completion_tokens() -> None:
    official = OpenAIChatModel("gpt-5.5", api_key="k", base_url="https://api.openai.com/v1")
    local = OpenAIChatModel("llama3.1", base_url="http://127.0.0.1:11434/v1")
    request = ModelRequest("gpt-5.5", "", [UserMessage("a")], max_tokens=100)
    assert official.build_body(request).get("max_completion_tokens") == 100
    assert "max_tokens" not in official.build_body(request)
    assert local.build_body(request).get("max_tokens") == 100


class _InputAtStartServer(FakeServer):
    """An Anthropic-compatible server that sends a tool call's input whole, at its start."""

    def handle(self, exchange: Exchange) -> None:
        message = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        }
        tool_use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "/a"}}
        exchange.send_sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": tool_use},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                        "usage": {"output_tokens": 9},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )


async def test_a_tool_input_sent_whole_at_block_start_is_kept() -> None:
    with _InputAtStartServer() as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.url)
        _, response = await collect(model, ModelRequest(MODEL, "", [UserMessage("read /a")]))
        await model.aclose()
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    assert [(c.id, c.input) for c in calls] == [("toolu_1", {"path": "/a"})]


def test_sonnet_4_5_over_200k_prompt_tokens_bills_the_long_context_rate() -> None:
    short, long = Usage(100_000, 1000), Usage(150_000, 1000, cache_read_input_tokens=60_000)
    assert cost_of("claude-sonnet-4-5[1m]", short) == pytest.approx((100_000 * 3 + 1000 * 15) / 1e6)
    expected = (150_000 * 6 + 1000 * 22.5 + 60_000 * 0.6) / 1e6
    assert cost_of("claude-sonnet-4-5-20250929", long) == pytest.approx(expected)
    assert cost_of("claude-sonnet-4-20250514", long) == pytest.approx(expected)
