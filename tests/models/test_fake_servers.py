"""The fake servers as a product: plain SDK use, recording, script bookkeeping."""

from __future__ import annotations

import anthropic
import openai
import pytest

from loopwright.models.scripted import error, text, tool_call
from loopwright.testing.fake_anthropic import FakeAnthropicServer, rate_limited
from loopwright.testing.fake_openai import FakeOpenAIServer


async def test_anthropic_non_streaming_json_and_recorded_headers() -> None:
    with FakeAnthropicServer([tool_call("Read", path="/a")]) as server:
        client = anthropic.AsyncAnthropic(api_key="sk-test", base_url=server.base_url)
        message = await client.messages.create(
            model="claude-haiku-5-5",
            max_tokens=100,
            messages=[{"role": "user", "content": "hi"}],
        )
        await client.close()
    assert message.stop_reason == "tool_use"
    block = message.content[0]
    assert block.type == "tool_use" and block.input == {"path": "/a"}
    recorded = server.requests[0]
    assert "sk-test" in (recorded.headers.get("x-api-key") or recorded.headers["authorization"])
    assert recorded.body["model"] == "claude-haiku-5-5"


async def test_openai_non_streaming_json_for_both_apis() -> None:
    with FakeOpenAIServer([text("from responses"), text("from chat")]) as server:
        client = openai.AsyncOpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)
        response = await client.responses.create(model="gpt-5.5", input="hi")
        completion = await client.chat.completions.create(
            model="gpt-5.5", messages=[{"role": "user", "content": "hi"}]
        )
        await client.close()
    assert response.output_text == "from responses"
    assert completion.choices[0].message.content == "from chat"
    assert [r.path for r in server.requests] == ["/v1/responses", "/v1/chat/completions"]
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_rate_limit_sends_retry_after_and_error_steps_map_to_statuses() -> None:
    script = [rate_limited(retry_after=2), error("down", kind="overloaded")]
    with FakeAnthropicServer(script) as server:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as limited:
            await client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]
            )
        with pytest.raises(anthropic.APIStatusError) as busy:
            await client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]
            )
        await client.close()
    assert limited.value.response.headers["retry-after"] == "2"
    assert busy.value.status_code == 529


async def test_exhausted_script_fails_loudly_and_assert_complete_counts() -> None:
    with FakeOpenAIServer([text("one"), text("two")]) as server:
        client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        await client.responses.create(model="gpt-5.5", input="hi")
        with pytest.raises(AssertionError, match="1 unused"):
            server.assert_complete()
        await client.responses.create(model="gpt-5.5", input="hi")
        server.assert_complete()
        with pytest.raises(openai.BadRequestError, match="script is exhausted"):
            await client.responses.create(model="gpt-5.5", input="hi")
        await client.close()


def test_servers_bind_loopback_on_a_free_port() -> None:
    with FakeAnthropicServer() as first, FakeOpenAIServer() as second:
        assert first.base_url.startswith("http://127.0.0.1:")
        assert second.base_url.endswith("/v1")
        assert first.port != second.port
