"""The providers encode each message once and keep its JSON between requests
(``models/_provider_base``): the bytes sent must stay exactly ``json_content`` of the body
built from scratch, request after request, whatever the history holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models import _provider_base as wire_cache
from loopwright.models._anthropic_wire import build_body as anthropic_body
from loopwright.models._provider_base import json_content
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest
from loopwright.models.openai_chat import OpenAIChatModel
from loopwright.models.openai_responses import OpenAIResponsesModel
from loopwright.models.openai_responses import build_body as responses_body
from loopwright.models.settings import ModelSettings

from .conftest import READ_TOOL

Message = AssistantMessage | UserMessage
Provider = AnthropicModel | OpenAIResponsesModel | OpenAIChatModel


def _history() -> list[Message]:
    image = ImageBlock("image/png", "aGVsbG8=")
    return [
        UserMessage("read /a, ünïcode ✓"),
        AssistantMessage(
            [
                ThinkingBlock("hm", "sig", {"provider": "anthropic"}),
                ThinkingBlock("r", None, {"provider": "openai", "item": {"type": "reasoning"}}),
                TextBlock("reading", {"provider": "openai", "item_id": "msg_1", "phase": "x"}),
                TextBlock("\n\n"),
                ToolUseBlock("call:1", "Read", {"path": "/a"}),
                ToolUseBlock("call_2", "Read", {}, raw_input="{not json"),
            ]
        ),
        UserMessage(
            [
                ToolResultBlock("call:1", "contents of /a"),
                ToolResultBlock("call_2", [TextBlock("bad"), image], is_error=True),
            ]
        ),
        UserMessage("and a lone surrogate: \ud83d, next"),  # a user turn after a user turn
        AssistantMessage(
            [
                ServerToolBlock("s1", "web_search", "use", provider_data={"provider": "x"}),
                TextBlock("   "),
            ]
        ),  # nothing of it goes to Anthropic: the latest marked is the one before
        UserMessage([TextBlock("look"), image]),
        AssistantMessage([TextBlock("done")]),
    ]


def _providers() -> list[tuple[Provider, Callable[[ModelRequest], bytes], Callable[..., bytes]]]:
    anthropic = AnthropicModel("claude-sonnet-5-5", api_key="k", base_url="http://127.0.0.1:9")
    limit = anthropic.capabilities.max_output_tokens
    responses = OpenAIResponsesModel("gpt-5.5", api_key="k", base_url="http://127.0.0.1:9")
    chat = OpenAIChatModel("gpt-5.5", api_key="k", base_url="http://127.0.0.1:9")
    return [
        (
            anthropic,
            lambda r: anthropic._request_body(r)[0],  # pyright: ignore[reportPrivateUsage]
            lambda r: json_content(anthropic_body(r, "claude-sonnet-5-5", output_limit=limit)[0]),
        ),
        (
            responses,
            responses._request_body,  # pyright: ignore[reportPrivateUsage]
            lambda r: json_content(responses_body(r, "gpt-5.5", reasoning=True)),
        ),
        (
            chat,
            chat._request_body,  # pyright: ignore[reportPrivateUsage]
            lambda r: json_content(chat.build_body(r)),
        ),
    ]


SETTINGS = [
    None,
    ModelSettings(stop=("x",), tool_choice="Read", parallel_tool_calls=False, user="u"),
    ModelSettings(extra_body={"messages": [{"role": "user", "content": "replaced"}]}),
    ModelSettings(extra_body={"input": [], "tools": []}),
]


@pytest.mark.parametrize("settings", SETTINGS)
def test_every_request_of_a_growing_history_is_sent_as_built_from_scratch(
    settings: ModelSettings | None,
) -> None:
    history = _history()
    for _, cached, fresh in _providers():
        for system in ("", "Be terse."):
            for end in range(len(history) + 1):
                request = ModelRequest(
                    "m", system, history[:end], [READ_TOOL], max_tokens=99, settings=settings
                )
                assert cached(request) == fresh(request), (end, system)


def test_a_changed_history_is_sent_as_it_now_is() -> None:
    """Compaction replaces messages; a content list changed in place is converted again;
    a message may stand twice in one request; a second conversation interleaves."""
    history = _history()
    other = [UserMessage("another session"), AssistantMessage([TextBlock("hello")])]
    for _, cached, fresh in _providers():

        def same(
            messages: list[Message], cached: Callable[..., bytes] = cached, fresh: Any = fresh
        ) -> None:
            request = ModelRequest("m", "sys", messages, [READ_TOOL])
            assert cached(request) == fresh(request)

        same(history)
        same(other)
        same([UserMessage("summary"), *history[-2:]])
        same(history)
        mutable = AssistantMessage([TextBlock("one")])
        same([*history, mutable])
        content: list[ContentBlock] = mutable.content
        content.append(ToolUseBlock("call_9", "Read", {"path": "/b"}))
        same([*history, mutable])
        content[0] = TextBlock("replaced")
        same([*history, mutable])
        same([*history, mutable, UserMessage("again"), mutable])
        same([])


def test_a_kept_message_is_converted_once() -> None:
    calls: list[Message] = []

    def convert(message: Message) -> str:
        calls.append(message)
        return str(message.content)

    cache: wire_cache.WireCache[str] = wire_cache.WireCache(convert)
    history = _history()
    for end in range(1, len(history) + 1):
        assert cache.convert_all(history[:end]) == [str(m.content) for m in history[:end]]
    assert calls == history


def test_finished_conversations_are_let_go() -> None:
    cache: wire_cache.WireCache[str] = wire_cache.WireCache(lambda m: "x")
    sessions = [[UserMessage(str(n))] for n in range(wire_cache.MAX_CONVERSATIONS + 5)]
    for messages in sessions:
        cache.convert_all(messages)
    kept = cache._conversations  # pyright: ignore[reportPrivateUsage]
    assert len(kept) == wire_cache.MAX_CONVERSATIONS
    for _ in range(wire_cache.MAX_IDLE_REQUESTS + 1):
        cache.convert_all(sessions[-1])
    assert [c.first for c in kept.values()] == [sessions[-1][0]]


def test_json_body_is_the_encoders_own_output() -> None:
    items: list[Any] = [{"a": 1.5, "b": None, "c": "é"}]
    body: dict[str, Any] = {"model": "m", "input": items, "n": float("inf"), "t": True}
    text = wire_cache.json_body(body, "input", items, '[{"a":1.5,"b":null,"c":"é"}]')
    assert text == wire_cache.to_json(body)
    odd: dict[Any, Any] = {"input": items, 1: "x"}  # a key not a str (from extra_body)
    assert wire_cache.json_body(odd, "input", items, "WRONG") == wire_cache.to_json(odd)
    assert wire_cache.json_body(body, "input", [], "WRONG") == wire_cache.to_json(body)
