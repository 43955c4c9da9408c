"""Recorded provider traffic (tests/models/recordings/*.sse) replayed byte for byte.

Each recording is a response stream in its provider's real wire format. The tests check
what comes out (blocks, usage, stop reason) and — where it matters — what goes back on the
next request, validated against the SDKs' own request TypedDicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anthropic.types.message_create_params import MessageCreateParamsStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest, ModelResponse, RetryNotice, TextDelta
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.retry import RetryingModel
from loopwright.models.scripted import text
from loopwright.testing._fake_http import Recording
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from ._validate import validate
from .conftest import READ_TOOL, SleepRecorder, collect

RECORDINGS = Path(__file__).parent / "recordings"


def recording(name: str, *, cut: bool = False) -> Recording:
    return Recording.from_file(RECORDINGS / name, cut=cut)


def request(*messages: UserMessage | AssistantMessage) -> ModelRequest:
    history = list(messages) or [UserMessage("go")]
    return ModelRequest("unused", "You are terse.", history, [READ_TOOL])


# --------------------------------------------------------------------------- Anthropic


async def test_anthropic_server_tool_blocks_and_citations_come_back_verbatim() -> None:
    script = [recording("anthropic_web_search_citations.sse"), text("ok")]
    with FakeAnthropicServer(script) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url=server.base_url)
        _, response = await collect(model, request())
        history = [UserMessage("go"), AssistantMessage(response.content), UserMessage("more")]
        await collect(model, request(*history))
    use, result = response.content[1], response.content[2]
    assert isinstance(use, ServerToolBlock) and use.kind == "use" and use.name == "web_search"
    assert use.input == {"query": "httpx latest release"}
    assert isinstance(result, ServerToolBlock) and result.kind == "result"
    assert result.id == use.id
    cited = response.content[3]
    assert isinstance(cited, TextBlock) and cited.text == "The latest httpx release is 0.28.1."
    assert response.stop_reason == "end_turn" and response.usage.output_tokens == 187
    sent = server.bodies("/v1/messages")[1]
    validate(MessageCreateParamsStreaming, sent)
    blocks = sent["messages"][1]["content"]
    assert [b["type"] for b in blocks] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert blocks[1]["input"] == {"query": "httpx latest release"}
    assert blocks[2]["content"][1]["encrypted_content"].startswith("EvIECioI")
    assert blocks[3]["citations"][0]["encrypted_index"].startswith("Eo8BCioI")


# --------------------------------------------------------------------------- Responses


async def test_responses_phase_and_message_id_go_back_on_the_next_request() -> None:
    script = [recording("responses_phase_commentary.sse"), text("done")]
    with FakeOpenAIServer(script) as server:
        model = OpenAIResponsesModel("gpt-5.3-codex", api_key="k", base_url=server.base_url)
        _, response = await collect(model, request())
        call = response.content[2]
        assert isinstance(call, ToolUseBlock)
        history = [
            UserMessage("go"),
            AssistantMessage(response.content),
            UserMessage([ToolResultBlock(call.id, "# Readme")]),
        ]
        await collect(model, request(*history))
    assert response.usage.cache_read_input_tokens == 1536 and response.stop_reason == "tool_use"
    sent = server.bodies("/v1/responses")[1]
    validate(ResponseCreateParamsStreaming, sent)
    reasoning, message, function_call = sent["input"][1:4]
    assert reasoning["type"] == "reasoning" and reasoning["encrypted_content"].startswith("gAAAA")
    assert message == {
        "type": "message",
        "role": "assistant",
        "id": "msg_0c3f1a9e7d2b4c5a0169a8e2f3b7c08190a1b2c3d4e5f6a7b8",
        "status": "completed",
        "phase": "commentary",
        "content": [
            {
                "type": "output_text",
                "text": "Reading the README before changing anything.",
                "annotations": [],
            }
        ],
    }
    assert function_call["id"].startswith("fc_") and function_call["call_id"] == call.id


async def test_responses_web_search_call_and_url_citations_are_kept() -> None:
    script = [recording("responses_web_search.sse"), text("ok")]
    with FakeOpenAIServer(script) as server:
        model = OpenAIResponsesModel("gpt-5.5", api_key="k", base_url=server.base_url)
        first = ModelRequest("m", "", [UserMessage("when?")], server_tools=("web_search",))
        _, response = await collect(model, first)
        history = [UserMessage("when?"), AssistantMessage(response.content), UserMessage("ok")]
        await collect(model, ModelRequest("m", "", history, server_tools=("web_search",)))
    search = response.content[0]
    assert isinstance(search, ServerToolBlock) and search.name == "web_search"
    assert search.input == {"type": "search", "query": "python 3.14 release date"}
    assert response.stop_reason == "end_turn"
    first_body, second_body = server.bodies("/v1/responses")
    assert first_body["tools"] == [{"type": "web_search"}]
    validate(ResponseCreateParamsStreaming, second_body)
    call, message = second_body["input"][1:3]
    assert call["type"] == "web_search_call" and call["action"]["query"].startswith("python")
    assert message["phase"] == "final_answer"
    assert message["content"][0]["annotations"][0]["type"] == "url_citation"


# --------------------------------------------------------------------------- Chat Completions


async def _chat(name: str, model_id: str = "m") -> tuple[ModelResponse, list[object]]:
    with FakeOpenAIServer([recording(name)]) as server:
        model = OpenAIChatModel(model_id, base_url=server.base_url)
        events, response = await collect(model, request())
    return response, list(events)


async def test_groq_usage_in_x_groq_and_reasoning_field_are_read() -> None:
    response, _ = await _chat("chat_groq_reasoning_x_groq_usage.sse")
    thinking, call = response.content
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.thinking == "The user asks for the file. Use Read."
    assert isinstance(call, ToolUseBlock) and call.input == {"path": "/repo/setup.cfg"}
    assert response.usage.input_tokens == 214 and response.usage.output_tokens == 41
    assert response.stop_reason == "tool_use"


async def test_openrouter_reasoning_details_are_thinking_once_and_go_back() -> None:
    script = [recording("chat_openrouter_reasoning_details.sse"), text("ok")]
    with FakeOpenAIServer(script) as server:
        model = OpenAIChatModel("anthropic/claude-sonnet-4.5", base_url=server.base_url)
        _, response = await collect(model, request())
        history = [UserMessage("go"), AssistantMessage(response.content), UserMessage("and?")]
        await collect(model, request(*history))
    thinking = response.content[0]
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.thinking == "The user wants a one-word answer."  # not doubled
    assert response.content[1] == TextBlock("Paris")
    assert response.usage.output_tokens == 37
    sent = server.bodies("/chat/completions")[1]["messages"][2]
    assert sent["reasoning_details"] == [
        {
            "type": "reasoning.text",
            "text": "The user wants a one-word answer.",
            "format": "anthropic-claude-v1",
            "index": 0,
            "signature": "EqQBCkgIChABGAIiQFk3dGVzdHNpZ25hdHVyZWZvcmxvb3B3cmlnaHRyZWNvcmRpbmdzAAAA",
        }
    ]


async def test_stream_ending_with_usage_and_done_but_no_finish_reason_completes() -> None:
    response, _ = await _chat("chat_usage_then_done_no_finish_reason.sse")
    assert response.content == [TextBlock("All tests pass.")]
    assert response.stop_reason == "end_turn"
    assert response.usage.input_tokens == 152 and response.usage.output_tokens == 5


async def test_think_tags_split_across_chunks_become_a_thinking_block() -> None:
    response, events = await _chat("chat_think_tags.sse", "qwen3:8b")
    assert response.content == [
        ThinkingBlock(
            "\nThe user greets me; reply briefly.\n",
            None,
            {"provider": "openai", "field": "think_tag"},
        ),
        TextBlock("Hello!"),
    ]
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == "Hello!"


async def test_deepseek_reasoning_content_and_cache_hit_tokens_are_read() -> None:
    script = [recording("chat_deepseek_reasoning_content_cache_hit.sse"), text("ok")]
    with FakeOpenAIServer(script) as server:
        model = OpenAIChatModel("deepseek-reasoner", base_url=server.base_url)
        _, response = await collect(model, request())
        call = response.content[1]
        assert isinstance(call, ToolUseBlock)
        history = [
            UserMessage("go"),
            AssistantMessage(response.content),
            UserMessage([ToolResultBlock(call.id, "[project]")]),
        ]
        await collect(model, request(*history))
    assert response.usage.cache_read_input_tokens == 320
    assert response.usage.input_tokens == 12
    sent = server.bodies("/chat/completions")[1]
    validate(CompletionCreateParamsStreaming, sent)
    assert sent["messages"][2]["reasoning_content"] == "Need the config file first."


async def test_a_stream_cut_mid_way_is_an_error_that_is_retried() -> None:
    script = [
        recording("chat_cut_midway.sse", cut=True),
        recording("chat_usage_then_done_no_finish_reason.sse"),
    ]
    sleeps = SleepRecorder()
    with FakeOpenAIServer(script) as server:
        inner = OpenAIChatModel("m", base_url=server.base_url)
        model = RetryingModel(inner, max_retries=2, sleep=sleeps, jitter=lambda: 0.0)
        events, response = await collect(model, request())
    notices = [e for e in events if isinstance(e, RetryNotice)]
    assert len(notices) == 1 and "stream" in notices[0].error
    assert response.content == [TextBlock("All tests pass.")]


async def test_a_cut_stream_alone_raises_a_stream_error() -> None:
    with FakeOpenAIServer([recording("chat_cut_midway.sse", cut=True)]) as server:
        model = OpenAIChatModel("m", base_url=server.base_url)
        with pytest.raises(ModelError) as caught:
            await collect(model, request())
    assert caught.value.kind == "stream" and caught.value.retryable


async def test_server_blocks_and_citations_survive_the_transcript() -> None:
    with FakeAnthropicServer([recording("anthropic_web_search_citations.sse")]) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url=server.base_url)
        _, response = await collect(model, request())
    message = AssistantMessage(response.content)
    restored = AssistantMessage.from_dict(json.loads(json.dumps(message.to_dict())))
    assert restored == message
    cited = restored.content[3]
    assert isinstance(cited, TextBlock) and cited.provider_data == response.content[3].provider_data
    assert isinstance(restored.content[2], ServerToolBlock)
    assert restored.content[2].provider_data == response.content[2].provider_data
