"""Chat Completions wire format: tool messages, delta assembly, compatible servers."""

from __future__ import annotations

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
