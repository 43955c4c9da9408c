"""A provider's errors keep the kind their type says, and errors no retry can fix (a
refused request, an account out of quota) are not retried."""

from __future__ import annotations

import pytest

from loopwright.errors import ModelError
from loopwright.messages import UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest, RetryNotice
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.retry import RetryingModel
from loopwright.models.scripted import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer, http_error, stream_error
from loopwright.testing.fake_openai import FakeOpenAIServer

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
