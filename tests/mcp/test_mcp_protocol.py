"""The protocol beyond tools against a real stdio server (MCPServer): resources, prompts,
elicitation, sampling, roots, progress, list changes and cancellation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcp_support import full_config

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError
from loopwright.mcp import McpManager
from loopwright.mcp.catalog import get_prompt, list_prompts, list_resources, read_resource
from loopwright.mcp.host import (
    NO_ELICITATION_HANDLER,
    ElicitationRequest,
    ElicitationResponse,
    McpHost,
)
from loopwright.mcp.resource_tools import ListMcpResourcesTool, ReadMcpResourceTool
from loopwright.messages import ImageBlock, Message, SystemMessage
from loopwright.tools.base import SessionState, Tool, ToolContext

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def full() -> AsyncIterator[McpManager]:
    async with McpManager() as manager:
        await manager.start({"full": full_config()})
        yield manager


def tool(manager: McpManager, name: str) -> Tool:
    return next(t for t in manager.tools() if t.name == f"mcp__full__{name}")


async def test_resources_and_templates_are_listed_with_their_types(full: McpManager) -> None:
    listing = await list_resources(full)
    by_uri = {r.uri: r for r in listing.resources}
    assert by_uri["notes://readme"].mime_type == "text/markdown"
    assert by_uri["notes://readme"].description == "The readme"
    assert by_uri["users://{user_id}/profile"].template is True
    assert listing.problems == ()


async def test_list_tool_returns_json_the_model_can_read(
    full: McpManager, ctx: ToolContext
) -> None:
    result = await ListMcpResourcesTool(full).call({"server": "full"}, ctx)
    data = json.loads(str(result.content))
    uris = {item.get("uri") or item.get("uriTemplate") for item in data["resources"]}
    assert {"notes://readme", "images://pixel", "users://{user_id}/profile"} <= uris


async def test_read_text_resource(full: McpManager, ctx: ToolContext) -> None:
    result = await ReadMcpResourceTool(full).call({"server": "full", "uri": "notes://readme"}, ctx)
    assert result.is_error is False
    assert "launch code is 4242" in str(result.content)


async def test_read_a_uri_of_a_template(full: McpManager) -> None:
    [content] = await read_resource(full, "full", "users://7/profile")
    assert content.text == "profile of user 7"


async def test_image_resource_becomes_an_image_block(full: McpManager, ctx: ToolContext) -> None:
    result = await ReadMcpResourceTool(full).call({"server": "full", "uri": "images://pixel"}, ctx)
    assert isinstance(result.content, list)
    image = next(b for b in result.content if isinstance(b, ImageBlock))
    assert image.media_type == "image/png" and image.data.startswith("iVBOR")


async def test_other_binary_resource_is_saved_to_a_file(
    full: McpManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(tmp_path))
    ctx = ToolContext(SessionState(tmp_path), "toolu_1", session_id="s-bin")
    result = await ReadMcpResourceTool(full).call({"server": "full", "uri": "files://archive"}, ctx)
    text = str(result.content)
    assert "application/zip" in text and "saved to" in text
    saved = Path(text.split("saved to ")[1].split(";")[0])
    assert saved.read_bytes().startswith(b"PK\x03\x04")
    assert saved.parent == tmp_path / "tool-output" / "s-bin"


async def test_unknown_server_and_unknown_uri_say_what_to_do(
    full: McpManager, ctx: ToolContext
) -> None:
    read = ReadMcpResourceTool(full)
    missing = await read.call({"server": "nope", "uri": "notes://readme"}, ctx)
    assert missing.is_error and "no MCP server named 'nope'" in str(missing.content)
    assert_says_what_to_do(missing.content, "check the name")
    unknown = await read.call({"server": "full", "uri": "notes://absent"}, ctx)
    assert unknown.is_error and "notes://absent" in str(unknown.content)


async def test_prompts_are_listed_with_their_arguments(full: McpManager) -> None:
    listing = await list_prompts(full)
    review = next(p for p in listing.prompts if p.name == "review")
    assert [(a.name, a.required) for a in review.arguments] == [
        ("language", True),
        ("focus", False),
    ]


async def test_get_prompt_fills_in_the_arguments(full: McpManager) -> None:
    result = await get_prompt(full, "full", "review", {"language": "Go", "focus": "races"})
    assert result.text == "Review this Go code, looking for races."


async def test_get_prompt_on_unknown_server_is_a_clear_error(full: McpManager) -> None:
    with pytest.raises(ConfigurationError, match="no MCP server named 'other'"):
        await get_prompt(full, "other", "review")


async def test_progress_notifications_become_stream_messages(full: McpManager) -> None:
    seen: list[Message] = []

    async def emit(message: Message) -> None:
        seen.append(message)

    ctx = ToolContext(SessionState(Path.cwd()), "toolu_p", emit=emit)
    result = await tool(full, "count").call({"steps": 3}, ctx)
    assert result.content == "counted to 3"
    progress = [m.data for m in seen if isinstance(m, SystemMessage)]
    assert [(p["progress"], p["total"], p["message"]) for p in progress] == [
        (1.0, 3.0, "step 1"),
        (2.0, 3.0, "step 2"),
        (3.0, 3.0, "step 3"),
    ]
    assert {p["tool_use_id"] for p in progress} == {"toolu_p"}


async def test_a_tool_the_server_adds_appears_after_list_changed(
    full: McpManager, ctx: ToolContext
) -> None:
    before = full.generation
    await tool(full, "grow").call({}, ctx)
    async with asyncio.timeout(10):
        while full.generation == before:  # the listen stream delivers it, then a re-list
            await asyncio.sleep(0.02)
    extra = tool(full, "extra")
    assert (await extra.call({}, ctx)).content == "extra here"


async def test_interrupted_call_is_cancelled_on_the_server(
    tmp_path: Path, ctx: ToolContext
) -> None:
    async with McpManager() as manager:
        await manager.start({"full": full_config(tmp_path)})
        wait = tool(manager, "wait_forever")
        call = asyncio.create_task(wait.call({"tag": "t1"}, ctx))
        started = tmp_path / "t1.started"
        async with asyncio.timeout(10):
            while not started.exists():
                await asyncio.sleep(0.02)
        call.cancel()  # what an interrupted turn does to its running tool calls
        with pytest.raises(asyncio.CancelledError):
            await call
        cancelled = tmp_path / "t1.cancelled"
        async with asyncio.timeout(10):
            while not cancelled.exists():
                await asyncio.sleep(0.02)
        # The connection is still good for the next call.
        assert (await tool(manager, "pid").call({}, ctx)).is_error is False


async def test_elicitation_is_answered_by_the_callback(ctx: ToolContext) -> None:
    asked: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request)
        return ElicitationResponse("accept", {"date": "2026-03-01", "seats": 2})

    async with McpManager(host=McpHost(on_elicitation=answer)) as manager:
        await manager.start({"full": full_config()})
        result = await tool(manager, "book").call({}, ctx)
    assert result.content == "booked 2 seats on 2026-03-01"
    [request] = asked
    assert request.server == "full" and request.message == "Which date, and how many seats?"
    assert set(request.requested_schema["properties"]) == {"date", "seats"}


async def test_elicitation_without_a_callback_is_declined(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"full": full_config()})
        result = await tool(manager, "book").call({}, ctx)
    assert result.content == "not booked: decline"
    assert "headless" in NO_ELICITATION_HANDLER


async def test_roots_are_the_working_directories(tmp_path: Path, ctx: ToolContext) -> None:
    other = tmp_path / "other"
    other.mkdir()
    host = McpHost(working_dirs=(tmp_path, other))
    async with McpManager(host=host) as manager:
        await manager.start({"full": full_config()})
        result = await tool(manager, "roots").call({}, ctx)
    assert str(result.content).splitlines() == [tmp_path.as_uri(), other.as_uri()]


async def test_sampling_is_refused_unless_allowed(ctx: ToolContext) -> None:
    async with McpManager() as manager:
        await manager.start({"full": full_config()})
        result = await tool(manager, "summarise").call({"text": "long text"}, ctx)
    assert result.is_error is True
    assert_says_what_to_do(result.content, "ask the user to allow it (Options(mcp_sampling=True)")
