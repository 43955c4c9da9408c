"""A model's answer holding a lone surrogate (half a UTF-16 pair, escaped in the JSON it
streamed) must not break the session: the next request carries U+FFFD in its place."""

from __future__ import annotations

import json

from loopwright import Client, Options
from loopwright.messages import ResultMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.testing import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

BROKEN = "half a pair: \ud83d, then more"


async def _two_prompts(model: object) -> list[ResultMessage]:
    results: list[ResultMessage] = []
    options = Options(model=model, tools=[], setting_sources=[], persist_session=False)  # type: ignore[arg-type]
    async with Client(options) as client:
        for prompt in ("first", "second"):
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    results.append(message)
    return results


async def test_anthropic_sends_a_lone_surrogate_of_the_last_answer_as_a_replacement() -> None:
    with FakeAnthropicServer([text(BROKEN), text("fine")]) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url=server.base_url)
        first, second = await _two_prompts(model)
        sent = json.dumps(server.requests[1].body, ensure_ascii=False)
    assert first.result == BROKEN and not second.is_error and second.result == "fine"
    assert "half a pair: \ufffd, then more" in sent


async def test_openai_chat_sends_a_lone_surrogate_of_the_last_answer_as_a_replacement() -> None:
    with FakeOpenAIServer([text(BROKEN), text("fine")]) as server:
        model = OpenAIChatModel("gpt-4o", api_key="k", base_url=server.base_url)
        first, second = await _two_prompts(model)
        sent = json.dumps(server.requests[1].body, ensure_ascii=False)
    assert first.result == BROKEN and not second.is_error and second.result == "fine"
    assert "half a pair: \ufffd, then more" in sent
