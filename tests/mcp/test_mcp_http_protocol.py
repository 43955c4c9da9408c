"""The protocol beyond tools over streamable HTTP (a real MCPServer on 127.0.0.1), with
the session's OAuth provider attached as every session has it (the server needs none)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_support import FULL_SERVER, ScriptServer

from loopwright.mcp.catalog import get_prompt, list_resources, read_resource
from loopwright.mcp.host import ElicitationRequest, ElicitationResponse
from loopwright.mcp.session_setup import new_manager
from loopwright.tools.base import ToolContext


@pytest.fixture
def full_http() -> Iterator[str]:
    server = ScriptServer(FULL_SERVER, "--transport", "streamable-http")
    yield server.url("/mcp")
    server.stop()


async def test_resources_prompts_and_elicitation_over_http(
    full_http: str, ctx: ToolContext
) -> None:
    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse("accept", {"date": "monday", "seats": 1})

    manager = new_manager(connect_timeout=20, call_timeout=20, on_elicitation=answer)
    async with manager:
        [status] = await manager.start({"web": {"type": "http", "url": full_http}})
        listing = await list_resources(manager, "web")
        [readme] = await read_resource(manager, "web", "notes://readme")
        prompt = await get_prompt(manager, "web", "review", {"language": "C"})
        book = next(t for t in manager.tools() if t.name == "mcp__web__book")
        booked = await book.call({}, ctx)
    assert status.status == "connected"
    assert "images://pixel" in {r.uri for r in listing.resources}
    assert readme.text is not None and "4242" in readme.text
    assert prompt.text == "Review this C code, looking for bugs."
    assert booked.content == "booked 1 seats on monday"
