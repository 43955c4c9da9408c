"""Anthropic requests built from other providers' histories, and streams from compatible
servers: foreign tool ids, blank text, a tool input sent whole at its block's start."""

from __future__ import annotations

import re

from anthropic.types.message_create_params import MessageCreateParamsStreaming

from loopwright.messages import (
    AssistantMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.base import ModelRequest
from loopwright.models.scripted import text
from loopwright.testing._fake_http import Exchange, FakeServer
from loopwright.testing.fake_anthropic import FakeAnthropicServer

from ._validate import validate
from .conftest import collect

MODEL = "claude-sonnet-5-5"


async def test_foreign_tool_ids_are_sent_to_anthropic_in_a_form_it_accepts() -> None:
    # Some OpenAI-compatible servers mint ids like "functions.Read:0"; a session that
    # falls back (or switches) to Claude must still be accepted, with pairs intact.
    history: list[AssistantMessage | UserMessage] = [
        UserMessage("read both"),
        AssistantMessage(
            [
                ToolUseBlock("functions.Read:0", "Read", {"path": "/a"}),
                ToolUseBlock("functions.Read.0", "Read", {"path": "/b"}),
            ]
        ),
        UserMessage(
            [ToolResultBlock("functions.Read:0", "a"), ToolResultBlock("functions.Read.0", "b")]
        ),
    ]
    with FakeAnthropicServer([text("done")]) as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        await collect(model, ModelRequest(MODEL, "", history))
        await model.aclose()
        body = server.requests[0].body
    calls = [b["id"] for b in body["messages"][1]["content"]]
    results = [b["tool_use_id"] for b in body["messages"][2]["content"]]
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", call_id) for call_id in calls)
    assert calls == results and len(set(calls)) == 2
    validate(MessageCreateParamsStreaming, body)


async def test_whitespace_only_text_is_not_sent_to_anthropic() -> None:
    history: list[AssistantMessage | UserMessage] = [
        UserMessage("list the files"),
        AssistantMessage([TextBlock("\n\n"), ToolUseBlock("toolu_1", "Glob", {"pattern": "*"})]),
        UserMessage([ToolResultBlock("toolu_1", [TextBlock("  "), TextBlock("a.py")])]),
    ]
    with FakeAnthropicServer([text("done")]) as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.base_url)
        await collect(model, ModelRequest(MODEL, "", history))
        await model.aclose()
        body = server.requests[0].body
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]
    assert body["messages"][2]["content"][0]["content"] == [{"type": "text", "text": "a.py"}]


class _InputAtStartServer(FakeServer):
    """An Anthropic-compatible server that sends a tool call's input whole, at its start."""

    def handle(self, exchange: Exchange) -> None:
        message = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        }
        tool_use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "/a"}}
        exchange.send_sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": tool_use},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                        "usage": {"output_tokens": 9},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )


async def test_a_tool_input_sent_whole_at_block_start_is_kept() -> None:
    with _InputAtStartServer() as server:
        model = AnthropicModel(MODEL, api_key="k", base_url=server.url)
        _, response = await collect(model, ModelRequest(MODEL, "", [UserMessage("read /a")]))
        await model.aclose()
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    assert [(c.id, c.input) for c in calls] == [("toolu_1", {"path": "/a"})]
