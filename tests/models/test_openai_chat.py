"""Chat Completions wire format: tool messages, delta assembly, compatible servers."""

from __future__ import annotations

from typing import Any

from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.base import ModelRequest, ThinkingConfig
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.scripted import text, tool_call
from loopwright.testing._fake_http import Exchange, FakeServer, SSEEvent
from loopwright.testing.fake_openai import FakeOpenAIServer

from ._validate import validate
from .conftest import READ_TOOL, collect


def test_request_body_validates_and_converts_history() -> None:
    model = OpenAIChatModel("gpt-5.5", api_key="k")
    history = [
        UserMessage("start"),
        AssistantMessage(
            [
                ThinkingBlock("private", None, {"provider": "openai"}),
                TextBlock("calling"),
                ToolUseBlock("c1", "Read", {"path": "/a"}),
                ToolUseBlock("c2", "Read", {"path": "/b"}),
            ]
        ),
        UserMessage(
            [
                ToolResultBlock("c1", "A"),
                ToolResultBlock("c2", [TextBlock("B"), ImageBlock("image/png", "AAAA")], True),
                TextBlock("and?"),
            ]
        ),
    ]
    request = ModelRequest("gpt-5.5", "sys", history, [READ_TOOL], max_tokens=50, effort="high")
    body = model.build_body(request)
    validate(CompletionCreateParamsStreaming, body)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user"]
    assistant = body["messages"][2]
    assert assistant["content"] == "calling" and len(assistant["tool_calls"]) == 2
    assert body["messages"][4] == {"role": "tool", "tool_call_id": "c2", "content": "Error: B"}
    assert body["messages"][5]["content"][0]["type"] == "image_url"
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 50 and body["reasoning_effort"] == "high"


def test_compatible_servers_get_max_tokens_and_need_no_key() -> None:
    local = OpenAIChatModel("llama3.1:8b", base_url="http://127.0.0.1:11434/v1")
    request = ModelRequest(
        "m", "", [UserMessage("hi")], max_tokens=10, thinking=ThinkingConfig("disabled")
    )
    body = local.build_body(request)
    assert body["max_tokens"] == 10 and "reasoning_effort" not in body
    assert local.context_window == 128_000


async def test_reasoning_content_becomes_thinking_and_goes_back_with_its_tool_calls() -> None:
    with FakeOpenAIServer([tool_call("Read", path="/a").with_(thinking="hmm"), text("ok")]) as s:
        model = OpenAIChatModel("qwen3", base_url=s.base_url)
        _, response = await collect(model, ModelRequest("m", "", [UserMessage("go")], [READ_TOOL]))
        assert isinstance(response.content[0], ThinkingBlock)
        assert response.content[0].thinking == "hmm"
        history = [UserMessage("go"), AssistantMessage(response.content)]
        await collect(model, ModelRequest("m", "", history))
    assert s.requests[0].headers["authorization"] == "Bearer not-needed"
    sent = s.requests[1].body["messages"][1]
    # Kimi, GLM and DeepSeek's thinking tool use want the reasoning of a tool-call turn back.
    assert (
        sent["reasoning_content"] == "hmm" and sent["tool_calls"][0]["function"]["name"] == "Read"
    )
    for body in s.bodies("/chat/completions"):
        validate(CompletionCreateParamsStreaming, body)


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
