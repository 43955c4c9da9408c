"""What our own HTTP path sends: the headers each real API requires, the user's headers,
the SDK's JSON body — and which requests the SDK sends instead.

The fake servers record each request as it arrived; a raw socket keeps the bytes where a
header could hide in a dict (a name sent twice).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
from typing import Any

import httpx2
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from loopwright import __version__
from loopwright.errors import ModelError
from loopwright.messages import UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.scripted import text
from loopwright.models.settings import ModelSettings
from loopwright.testing._fake_http import RecordedRequest
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from .conftest import PROVIDERS, Provider, ask, collect

# What each real API refuses a request without (besides Host and Content-Length).
REQUIRED: dict[str, dict[str, str]] = {
    "anthropic": {
        "content-type": "application/json",
        "x-api-key": "test-key",
        "anthropic-version": "2026-10-21",
    },
    "responses": {"content-type": "application/json", "authorization": "Bearer test-key"},
    "chat": {"content-type": "application/json", "authorization": "Bearer test-key"},
}


async def _one_request(provider: Provider, **options: Any) -> RecordedRequest:
    settings = options.pop("settings", None)
    with provider.serve([text("hi")], **options) as (server, model):
        await run_to_end(model, ask(settings=settings) if settings else ask())
        return server.requests[0]


async def run_to_end(model: Any, request: ModelRequest) -> None:
    await collect(model, request)
    await model.aclose()


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.id for p in PROVIDERS])
async def test_a_request_carries_what_the_real_api_requires(provider: Provider) -> None:
    received = await _one_request(provider)
    assert received.path == provider.path and received.query == ""
    for name, value in REQUIRED[provider.family].items():
        assert received.headers.get(name) == value, name
    assert received.headers["user-agent"] == f"loopwright/{__version__}"


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.id for p in PROVIDERS])
async def test_the_users_headers_are_sent_and_replace_ours(provider: Provider) -> None:
    settings = ModelSettings(extra_headers={"X-Team": "qa", "User-Agent": "mine/1"})
    received = await _one_request(
        provider, default_headers={"X-App": "demo", "x-team": "overridden"}, settings=settings
    )
    assert received.headers["x-app"] == "demo"
    assert received.headers["x-team"] == "qa"  # the request's own beat the client's
    assert received.headers["user-agent"] == "mine/1"


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.id for p in PROVIDERS])
async def test_the_body_is_the_one_the_sdk_path_sends(provider: Provider) -> None:
    ours = await _one_request(provider)
    sdk_path = await _one_request(provider, http_client=httpx2.AsyncClient())
    assert ours.body == sdk_path.body
    assert ours.path == sdk_path.path and ours.query == sdk_path.query
    # The SDK sends its own headers: that is how the two paths are told apart here.
    assert sdk_path.headers["user-agent"] != ours.headers["user-agent"]


async def test_a_beta_model_asks_the_beta_endpoint_with_every_beta_flag() -> None:
    settings = ModelSettings(extra_headers={"anthropic-beta": "files-api-2025-04-14"})
    with FakeAnthropicServer([text("hi")]) as server:
        model = AnthropicModel("claude-sonnet-5-5[1m]", api_key="k", base_url=server.base_url)
        await run_to_end(model, ask(settings=settings))
    received = server.requests[0]
    assert received.query == "beta=true"
    assert received.headers["anthropic-beta"] == "files-api-2025-04-14,context-1m-2025-08-07"
    assert received.body["model"] == "claude-sonnet-5-5"


async def test_anthropic_custom_headers_from_the_environment_are_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Team: qa\nX-Cost-Center: 42")
    received = await _one_request(PROVIDERS[0])
    assert received.headers["x-team"] == "qa" and received.headers["x-cost-center"] == "42"
    assert received.headers["user-agent"].startswith("loopwright/")  # still our path


@pytest.mark.parametrize("provider", PROVIDERS[1:], ids=[p.id for p in PROVIDERS[1:]])
async def test_an_openai_organization_and_project_are_sent_when_configured(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "openai-organization" not in (await _one_request(provider)).headers
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    received = await _one_request(provider)
    assert received.headers["openai-organization"] == "org-1"
    assert received.headers["openai-project"] == "proj-1"
    assert received.headers["user-agent"].startswith("loopwright/")


async def test_an_auth_token_without_a_key_is_sent_by_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-1")
    with FakeAnthropicServer([text("hi")]) as server:
        await run_to_end(AnthropicModel("claude-sonnet-5-5", base_url=server.base_url), ask())
    received = server.requests[0]
    assert received.headers["authorization"] == "Bearer token-1"
    assert not received.headers["user-agent"].startswith("loopwright/")


async def test_a_proxy_in_the_environment_leaves_the_request_to_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeOpenAIServer([text("hi")]) as proxy:  # a forward proxy answers as the API
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        model = OpenAIChatModel("gpt-5.5", api_key="k", base_url="http://api.invalid/v1")
        await run_to_end(model, ask())
    received = proxy.requests[0]
    assert received.path == "http://api.invalid/v1/chat/completions"  # as sent to a proxy
    assert received.headers["user-agent"].startswith("AsyncOpenAI/")


async def test_requests_continue_the_trace_of_the_span_around_them() -> None:
    tracer = TracerProvider().get_tracer("app")
    with FakeAnthropicServer([text("a")]) as server:
        model = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url=server.base_url)
        with trace.use_span(tracer.start_span("agent turn"), end_on_exit=True) as span:
            await run_to_end(model, ask())
            trace_id = format(span.get_span_context().trace_id, "032x")
    assert server.requests[0].headers["traceparent"].split("-")[1] == trace_id


class RawRecorder:
    """Keeps every request as the bytes that arrived, and refuses it with a 400."""

    _REFUSAL = (
        b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
        b"Content-Length: 74\r\n\r\n"
        b'{"type":"error","error":{"type":"invalid_request_error","message":"nope"}}'
    )

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.requests: list[bytes] = []
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            data = b""
            while True:
                head, found, rest = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: *(\d+)", head)
                if found and length and len(rest) >= int(length.group(1)):
                    end = len(head) + 4 + int(length.group(1))
                    self.requests.append(data[:end])
                    data = data[end:]
                    connection.sendall(self._REFUSAL)
                    continue
                chunk = connection.recv(65536)
                if not chunk:
                    return
                data += chunk

    def close(self) -> None:
        self.listener.close()


async def _refused(model: Any) -> None:
    with pytest.raises(ModelError, match="nope"):
        async for _ in model.stream(ModelRequest("m", "s", [UserMessage("hi ünïcode")], [])):
            pass


@pytest.mark.parametrize("make", [AnthropicModel, OpenAIResponsesModel, OpenAIChatModel])
async def test_no_header_is_sent_twice_and_the_length_is_the_bodys(make: Any) -> None:
    server = RawRecorder()
    try:
        model = make("m", api_key="k", base_url=server.base_url, default_headers={"X-A": "1"})
        await _refused(model)
        await model.aclose()
    finally:
        server.close()
    head, _, body = server.requests[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    names = [line.split(b":")[0].lower() for line in lines[1:]]
    assert lines[0].startswith(b"POST /") and lines[0].endswith(b" HTTP/1.1")
    assert len(names) == len(set(names))
    assert names[0] == b"host" and f"content-length: {len(body)}".encode() in head.lower()


async def test_requests_reuse_their_connection() -> None:
    server = RawRecorder()
    try:
        model = OpenAIChatModel("gpt-5.5", api_key="k", base_url=f"{server.base_url}/v1")
        for _ in range(2):
            await _refused(model)
        await model.aclose()
    finally:
        server.close()
    assert len(server.requests) == 2 and server.connections == 1


def test_a_model_string_provider_streams_without_importing_its_sdk() -> None:
    # What `loopwright -p` does for each provider, in a fresh process against the fake
    # servers: whole answers arrive, and neither SDK nor an httpx was imported for them.
    script = """
import asyncio, sys
from loopwright.messages import UserMessage
from loopwright.models.base import ModelRequest, ModelResponse
from loopwright.models.registry import resolve_model
from loopwright.models.scripted import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

async def answer(spec, server):
    with server as running:
        env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
        model = resolve_model(f"{spec}?base_url={running.base_url}", env=env)
        events = [e async for e in model.stream(ModelRequest("m", "s", [UserMessage("hi")], []))]
        await model.aclose()
        assert isinstance(events[-1], ModelResponse)
        return events[-1].content[0].text

async def main():
    print(await answer("anthropic:claude-sonnet-5-5", FakeAnthropicServer([text("one")])))
    print(await answer("openai:gpt-5.5", FakeOpenAIServer([text("two")])))
    print(await answer("openai-chat:gpt-5.5", FakeOpenAIServer([text("three")])))

asyncio.run(main())
print(sorted(m for m in ("anthropic", "openai", "httpx2", "httpx") if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split("\n") == ["one", "two", "three", "[]", ""], done.stderr


def test_a_key_based_model_string_needs_no_sdk_installed() -> None:
    # A bare `pip install loopwright` has neither SDK; with an API key our client serves.
    script = """
import asyncio, sys
sys.modules["anthropic"] = None  # as if not installed: find_spec and import both fail
sys.modules["openai"] = None
from loopwright.messages import UserMessage
from loopwright.models.base import ModelRequest, ModelResponse
from loopwright.models.registry import resolve_model
from loopwright.models.scripted import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

async def answer(spec, server):
    with server as running:
        env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
        model = resolve_model(f"{spec}?base_url={running.base_url}", env=env)
        events = [e async for e in model.stream(ModelRequest("m", "s", [UserMessage("hi")], []))]
        await model.aclose()
        return events[-1].content[0].text

async def main():
    print(await answer("anthropic:claude-sonnet-5-5", FakeAnthropicServer([text("one")])))
    print(await answer("openai-chat:gpt-5.5", FakeOpenAIServer([text("two")])))

asyncio.run(main())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split("\n") == ["one", "two", ""], done.stderr


def test_a_provider_that_needs_its_missing_sdk_says_so_when_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from loopwright.errors import ConfigurationError

    monkeypatch.setitem(sys.modules, "anthropic", None)  # not installed
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-1")  # only the SDK sends a token
    with pytest.raises(ConfigurationError) as raised:
        AnthropicModel("claude-sonnet-5-5", base_url="http://127.0.0.1:9")
    assert "pip install 'loopwright[anthropic]'" in str(raised.value)
    assert "API key" in str(raised.value)
