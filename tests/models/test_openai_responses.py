"""OpenAI Responses wire format: items, encrypted reasoning round trip, effort, usage."""

from __future__ import annotations

import pydantic
import pytest
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ModelRequest, ThinkingConfig
from loopwright.models.openai_responses import OpenAIResponsesModel, build_body
from loopwright.models.scripted import text, tool_call
from loopwright.testing.fake_openai import FakeOpenAIServer

from ._validate import validate
from .conftest import READ_TOOL, collect

MODEL = "gpt-5.5"


def _model(server: FakeOpenAIServer) -> OpenAIResponsesModel:
    return OpenAIResponsesModel(MODEL, api_key="test-key", base_url=server.base_url)


def test_validator_rejects_a_malformed_body() -> None:
    body = {"model": MODEL, "stream": True, "input": [{"type": "function_call", "name": 3}]}
    with pytest.raises(pydantic.ValidationError):
        validate(ResponseCreateParamsStreaming, body)
    with pytest.raises(AssertionError):
        validate(ResponseCreateParamsStreaming, {"model": MODEL, "stream": True, "bogus": 1})


async def test_reasoning_items_round_trip_without_server_storage() -> None:
    script = [tool_call("Read", path="/a").with_(thinking="Check the file."), text("Done.")]
    with FakeOpenAIServer(script) as server:
        model = _model(server)
        first = ModelRequest(MODEL, "Be brief.", [UserMessage("read /a")], [READ_TOOL])
        _, response = await collect(model, first)
        reasoning, call = response.content
        assert isinstance(reasoning, ThinkingBlock) and reasoning.thinking == "Check the file."
        assert isinstance(call, ToolUseBlock)
        history = [
            *first.messages,
            AssistantMessage(response.content),
            UserMessage([ToolResultBlock(call.id, "file contents")]),
        ]
        await collect(model, ModelRequest(MODEL, "Be brief.", history, [READ_TOOL]))
    first_body, second_body = server.bodies("/responses")
    for body in (first_body, second_body):
        assert body["store"] is False
        assert body["include"] == ["reasoning.encrypted_content"]
        validate(ResponseCreateParamsStreaming, body)
    items = second_body["input"]
    assert [i["type"] for i in items] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert items[1]["encrypted_content"] == "fake-encrypted-reasoning-1"
    assert items[1]["id"] == "rs_fake_1"
    assert items[2]["call_id"] == call.id and items[3]["call_id"] == call.id
    assert items[3]["output"] == "file contents"


def test_effort_and_thinking_map_to_reasoning() -> None:
    request = ModelRequest(MODEL, "", [UserMessage("hi")], effort="max")
    assert build_body(request, MODEL, reasoning=True)["reasoning"] == {
        "effort": "max",
        "summary": "auto",
    }
    disabled = ModelRequest(MODEL, "", [UserMessage("hi")], thinking=ThinkingConfig("disabled"))
    assert build_body(disabled, MODEL, reasoning=True)["reasoning"] == {"effort": "none"}
    omitted = ModelRequest(
        MODEL, "", [UserMessage("hi")], effort="low", thinking=ThinkingConfig(display="omitted")
    )
    assert build_body(omitted, MODEL, reasoning=True)["reasoning"] == {"effort": "low"}
    plain = build_body(request, "gpt-4.1", reasoning=False)
    assert "reasoning" not in plain and "include" not in plain


def test_user_content_conversion() -> None:
    history = [
        UserMessage("start"),
        AssistantMessage([TextBlock("calling"), ToolUseBlock("c1", "Read", {}, raw_input="{bad")]),
        UserMessage(
            [
                ToolResultBlock("c1", "invalid arguments", is_error=True),
                ImageBlock("image/png", "AAAA"),
                TextBlock("see image"),
            ]
        ),
    ]
    request = ModelRequest(MODEL, "", history, max_tokens=100, metadata={"session_id": "s-1"})
    body = build_body(request, MODEL, reasoning=True)
    validate(ResponseCreateParamsStreaming, body)
    items = body["input"]
    assert items[1] == {"type": "message", "role": "assistant", "content": "calling"}
    assert items[2]["arguments"] == "{bad"
    assert items[3] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "Error: invalid arguments",
    }
    assert items[4]["content"][0]["image_url"] == "data:image/png;base64,AAAA"
    assert body["max_output_tokens"] == 100
    assert body["prompt_cache_key"] == "s-1"


async def test_cached_and_reasoning_tokens_are_reported() -> None:
    usage = Usage(input_tokens=100, output_tokens=50, cache_read_input_tokens=900)
    with FakeOpenAIServer([text("hi", thinking="a b c").with_(usage=usage)]) as server:
        _, response = await collect(_model(server), ModelRequest(MODEL, "", [UserMessage("x")]))
    assert response.usage == usage
    assert response.provider_data is not None
    assert response.provider_data["reasoning_tokens"] == 3


async def test_incomplete_response_means_max_tokens() -> None:
    step = text("cut off").with_(stop_reason="max_tokens")
    with FakeOpenAIServer([step]) as server:
        _, response = await collect(_model(server), ModelRequest(MODEL, "", [UserMessage("x")]))
    assert response.stop_reason == "max_tokens"
    assert response.content == [TextBlock("cut off")]


async def test_count_tokens_uses_the_input_tokens_endpoint() -> None:
    with FakeOpenAIServer([]) as server:
        request = ModelRequest(MODEL, "system", [UserMessage("count me")], [READ_TOOL])
        assert await _model(server).count_tokens(request) > 0
    assert server.requests[0].path == "/v1/responses/input_tokens"
    assert server.requests[0].body["input"][0]["content"] == "count me"


def test_tool_results_with_images_validate() -> None:
    history = [
        UserMessage("look"),
        AssistantMessage([ToolUseBlock("c1", "Shot", {})]),
        UserMessage(
            [ToolResultBlock("c1", [TextBlock("here"), ImageBlock("image/png", "AAAA")], True)]
        ),
    ]
    body = build_body(ModelRequest(MODEL, "", history), MODEL, reasoning=True)
    validate(ResponseCreateParamsStreaming, body)
    output = body["input"][-1]["output"]
    assert [part["type"] for part in output] == ["input_text", "input_text", "input_image"]
