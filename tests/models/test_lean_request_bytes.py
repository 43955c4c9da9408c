"""The lean request path puts the SDK's own bytes on the wire.

A listening socket on 127.0.0.1 keeps each request exactly as it arrived (request line,
headers in order and casing, body). The provider sends a request without importing its
SDK; then the same provider sends it through the SDK's client (given an httpx2 client, it
must), and the SDK's typed ``create`` sends the same body with the same client settings.
The lean request must equal the SDK path's byte for byte, and ``create``'s in its request
line and headers with the same JSON body (``create`` orders the keys its own way and may
escape non-ASCII, so its body bytes and Content-Length can differ).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from loopwright.errors import ModelError
from loopwright.messages import AssistantMessage, TextBlock, ToolUseBlock, UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import Model, ModelRequest
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.settings import ModelSettings

from .conftest import READ_TOOL

_REFUSAL = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 74\r\n\r\n"
    b'{"type":"error","error":{"type":"invalid_request_error","message":"nope"}}'
)


class RawRecorder:
    """Keeps every request as the bytes that arrived, and refuses it with a 400."""

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
                    connection.sendall(_REFUSAL)
                    continue
                chunk = connection.recv(65536)
                if not chunk:
                    return
                data += chunk

    def close(self) -> None:
        self.listener.close()


def _request(settings: ModelSettings | None = None) -> ModelRequest:
    history = [
        UserMessage("read /a"),
        AssistantMessage([TextBlock("reading"), ToolUseBlock("call_1", "Read", {"path": "/a"})]),
        UserMessage("now answer ünïcode"),
    ]
    return ModelRequest("m", "Be terse.", history, [READ_TOOL], max_tokens=256, settings=settings)


async def _refused(model: Model, request: ModelRequest) -> None:
    with pytest.raises(ModelError, match="nope"):
        async for _ in model.stream(request):
            pass


async def _sdk_refused(call: Callable[[], Awaitable[Any]]) -> None:
    with pytest.raises((anthropic.BadRequestError, openai.BadRequestError)):
        await call()


def _body(raw: bytes) -> dict[str, Any]:
    return json.loads(raw.partition(b"\r\n\r\n")[2])


def _head(raw: bytes) -> list[bytes]:
    lines = raw.partition(b"\r\n\r\n")[0].split(b"\r\n")
    return [line for line in lines if not line.lower().startswith(b"content-length:")]


def _same_as_the_sdks(lean: bytes, sdk_path: bytes, create: bytes) -> None:
    assert lean == sdk_path
    assert _head(lean) == _head(create)
    assert _body(lean) == _body(create)


CONFIGURATIONS: list[dict[str, Any]] = [
    {},
    {"default_headers": {"X-App": "demo", "accept": "application/json"}, "timeout": 30.0},
    {"timeout": None},
]
EXTRA = ModelSettings(extra_headers={"X-Team": "qa", "User-Agent": "mine/1"})


@pytest.mark.parametrize("config", CONFIGURATIONS)
@pytest.mark.parametrize("settings", [None, EXTRA], ids=["plain", "extra-headers"])
@pytest.mark.parametrize("model_id", ["claude-sonnet-5-5", "claude-sonnet-5-5[1m]"])
async def test_anthropic_lean_request_is_the_sdks_byte_for_byte(
    config: dict[str, Any], settings: ModelSettings | None, model_id: str
) -> None:
    server = RawRecorder()
    try:
        for http_client in (None, httpx2.AsyncClient()):
            model = AnthropicModel(
                model_id, api_key="k", base_url=server.base_url, http_client=http_client, **config
            )
            await _refused(model, _request(settings))
            await model.aclose()
        body = _body(server.requests[0])
        extra_headers = dict(settings.extra_headers) if settings else {}
        sdk = anthropic.AsyncAnthropic(
            api_key="k", base_url=server.base_url, max_retries=0, **config
        )
        query: dict[str, str] = {}
        if model_id.endswith("[1m]"):  # the 1M-token window's beta, on the beta endpoint
            extra_headers["anthropic-beta"] = "context-1m-2025-08-07"
            query["beta"] = "true"
        await _sdk_refused(
            lambda: sdk.messages.create(**body, extra_headers=extra_headers, extra_query=query)
        )
        await sdk.close()
    finally:
        server.close()
    _same_as_the_sdks(*server.requests)


@pytest.mark.parametrize("config", CONFIGURATIONS)
@pytest.mark.parametrize("settings", [None, EXTRA], ids=["plain", "extra-headers"])
@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_openai_lean_request_is_the_sdks_byte_for_byte(
    config: dict[str, Any], settings: ModelSettings | None, api: str
) -> None:
    server = RawRecorder()
    base_url = f"{server.base_url}/v1"
    try:
        provider = OpenAIResponsesModel if api == "responses" else OpenAIChatModel
        for http_client in (None, httpx2.AsyncClient()):
            model = provider(
                "gpt-5.5", api_key="k", base_url=base_url, http_client=http_client, **config
            )
            await _refused(model, _request(settings))
            await model.aclose()
        body = _body(server.requests[0])
        extra_headers = dict(settings.extra_headers) if settings else {}
        sdk = openai.AsyncOpenAI(api_key="k", base_url=base_url, max_retries=0, **config)
        create = sdk.responses.create if api == "responses" else sdk.chat.completions.create
        await _sdk_refused(lambda: create(**body, extra_headers=extra_headers))
        await sdk.close()
    finally:
        server.close()
    _same_as_the_sdks(*server.requests)


def test_a_model_string_provider_streams_without_importing_its_sdk() -> None:
    # What `loopwright -p` does for each provider, in a fresh process against the fake
    # servers: whole answers arrive, and neither SDK nor httpx2 was imported for them.
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
print(sorted(m for m in ("anthropic", "openai", "httpx2") if m in sys.modules))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split("\n") == ["one", "two", "three", "[]", ""], done.stderr


async def test_lean_requests_reuse_their_connection() -> None:
    server = RawRecorder()
    try:
        model = OpenAIChatModel("gpt-5.5", api_key="k", base_url=f"{server.base_url}/v1")
        for _ in range(2):
            await _refused(model, _request())
        await model.aclose()
    finally:
        server.close()
    assert len(server.requests) == 2 and server.connections == 1
