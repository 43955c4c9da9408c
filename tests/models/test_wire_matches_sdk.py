"""The bodies our providers send are the ones the official SDKs' own ``create`` calls send.

Each provider posts a prepared body (no per-request TypedDict transform and deep copy); the
same request is then made through the SDK's typed method, and both are compared as the
fake server received them: the path, the query and the JSON body. The headers are our
own (tests/models/test_request_headers.py).
"""

from __future__ import annotations

from typing import Any

import anthropic
import openai

from loopwright.messages import AssistantMessage, TextBlock, ToolUseBlock, UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel, build_body
from loopwright.models.scripted import text
from loopwright.models.settings import ModelSettings
from loopwright.testing._fake_http import RecordedRequest
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from .conftest import READ_TOOL, collect

SETTINGS = ModelSettings(
    tool_choice="any", parallel_tool_calls=False, user="u-1", extra_headers={"X-Team": "qa"}
)


def _request(settings: ModelSettings) -> ModelRequest:
    history = [
        UserMessage("read /a"),
        AssistantMessage([TextBlock("reading"), ToolUseBlock("call_1", "Read", {"path": "/a"})]),
        UserMessage("now answer"),
    ]
    return ModelRequest("m", "Be terse.", history, [READ_TOOL], max_tokens=256, settings=settings)


def _same_request(ours: RecordedRequest, sdks: RecordedRequest) -> None:
    assert ours.path == sdks.path and ours.query == sdks.query
    assert ours.body == sdks.body
    assert ours.headers["x-team"] == sdks.headers["x-team"] == "qa"


async def test_anthropic_request_equals_the_sdks_own() -> None:
    with FakeAnthropicServer([text("a"), text("b")]) as server:
        model = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=server.base_url)
        await collect(model, _request(SETTINGS))
        body: dict[str, Any] = dict(server.requests[0].body)
        sdk = anthropic.AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)
        stream = await sdk.messages.create(**body, extra_headers={"X-Team": "qa"})
        async for _ in stream:
            pass
        await sdk.close()
        await model.aclose()
    _same_request(*server.requests)


async def test_responses_request_equals_the_sdks_own() -> None:
    with FakeOpenAIServer([text("a"), text("b")]) as server:
        model = OpenAIResponsesModel("gpt-5.5", api_key="k", base_url=server.base_url)
        await collect(model, _request(SETTINGS))
        body = build_body(_request(SETTINGS), "gpt-5.5", reasoning=True)
        sdk = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        stream = await sdk.responses.create(**body, extra_headers={"X-Team": "qa"})
        async for _ in stream:
            pass
        await sdk.close()
        await model.aclose()
    _same_request(*server.requests)


async def test_chat_request_equals_the_sdks_own() -> None:
    with FakeOpenAIServer([text("a"), text("b")]) as server:
        model = OpenAIChatModel("gpt-5.5", api_key="k", base_url=server.base_url)
        await collect(model, _request(SETTINGS))
        body = model.build_body(_request(SETTINGS))
        sdk = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        stream = await sdk.chat.completions.create(**body, extra_headers={"X-Team": "qa"})
        async for _ in stream:
            pass
        await sdk.close()
        await model.aclose()
    _same_request(*server.requests)
