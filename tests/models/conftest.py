"""Fixtures for provider tests: each provider against its fake server over loopback."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from loopwright.messages import UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import Model, ModelEvent, ModelRequest, ModelResponse, ToolSpec
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.testing._fake_http import FakeServer, ScriptItem
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

READ_TOOL = ToolSpec(
    "Read",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
GLOB_TOOL = ToolSpec(
    "Glob", "Find files", {"type": "object", "properties": {"pattern": {"type": "string"}}}
)


@dataclass(frozen=True)
class Provider:
    """One provider, its fake server and the path its requests go to.

    ``transport`` "ours" is how a provider sends by default (our own HTTP client, the SDK
    not imported); "sdk" gives it an httpx2 client of the user's, which only the SDK can
    send through — both must behave the same."""

    id: str
    model_id: str
    path: str
    server: Callable[[Sequence[ScriptItem]], FakeServer]
    make: Callable[..., Model]
    transport: str = "ours"

    @property
    def family(self) -> str:
        """The provider whichever way it sends: anthropic, responses or chat."""
        return self.id.removesuffix("-sdk")

    @contextmanager
    def serve(self, script: Sequence[ScriptItem], **options: Any) -> Generator[Any]:
        with self.server(script) as server:
            if self.transport == "sdk":
                options.setdefault("http_client", httpx2.AsyncClient())
            model = self.make(
                self.model_id, api_key="test-key", base_url=server.base_url, **options
            )
            yield server, model


PROVIDERS = [
    Provider("anthropic", "claude-sonnet-5-5", "/v1/messages", FakeAnthropicServer, AnthropicModel),
    Provider("responses", "gpt-5.5", "/v1/responses", FakeOpenAIServer, OpenAIResponsesModel),
    Provider("chat", "gpt-5.5", "/v1/chat/completions", FakeOpenAIServer, OpenAIChatModel),
]
BOTH_TRANSPORTS = [
    *PROVIDERS,
    *(dataclasses.replace(p, id=f"{p.id}-sdk", transport="sdk") for p in PROVIDERS),
]


@pytest.fixture(params=PROVIDERS, ids=[p.id for p in PROVIDERS])
def provider(request: pytest.FixtureRequest) -> Provider:
    return request.param


def ask(text: str = "hello", **fields: Any) -> ModelRequest:
    fields.setdefault("tools", [READ_TOOL, GLOB_TOOL])
    return ModelRequest(
        model="unused", system="You are terse.", messages=[UserMessage(text)], **fields
    )


async def collect(model: Model, request: ModelRequest) -> tuple[list[ModelEvent], ModelResponse]:
    events = [event async for event in model.stream(request)]
    final = events[-1]
    assert isinstance(final, ModelResponse)
    assert sum(isinstance(e, ModelResponse) for e in events) == 1
    return events, final


@pytest.fixture(autouse=True)
def no_global_tracer_provider() -> None:
    """A global OpenTelemetry tracer provider left by an earlier test would trace the
    requests here (and add trace headers to them): the tests here expect none."""
    from opentelemetry import trace

    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider), (
        "an earlier test left a global tracer provider set; restore it after the test"
    )


class SleepRecorder:
    """An injectable sleep that records delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()
