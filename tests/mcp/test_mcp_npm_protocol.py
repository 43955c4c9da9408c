"""The protocol beyond tools with the npm reference server-everything, which speaks the
2025 (handshake) protocol: elicitation, roots and progress arrive as server requests and
notifications rather than through the 2026 input-required flow."""

from __future__ import annotations

from pathlib import Path

from loopwright.mcp import McpManager
from loopwright.mcp.catalog import get_prompt, list_prompts, list_resources, read_resource
from loopwright.mcp.host import ElicitationRequest, ElicitationResponse, McpHost
from loopwright.messages import Message, SystemMessage
from loopwright.tools.base import SessionState, ToolContext


def everything(packages: Path) -> dict[str, object]:
    return {"command": "node", "args": [str(packages / "server-everything/dist/index.js"), "stdio"]}


async def test_everything_server_elicits_lists_roots_reports_progress(
    npm_servers: Path, tmp_path: Path
) -> None:
    asked: list[ElicitationRequest] = []

    async def decline(request: ElicitationRequest) -> ElicitationResponse:
        asked.append(request)
        return ElicitationResponse("decline", reason="not now")

    seen: list[Message] = []

    async def emit(message: Message) -> None:
        seen.append(message)

    ctx = ToolContext(SessionState(tmp_path), "toolu_e", emit=emit)
    host = McpHost(on_elicitation=decline, working_dirs=(tmp_path,))
    async with McpManager(host=host) as manager:
        await manager.start({"e": everything(npm_servers)})
        tools = {t.name: t for t in manager.tools()}
        elicited = await tools["mcp__e__trigger-elicitation-request"].call({}, ctx)
        roots = await tools["mcp__e__get-roots-list"].call({}, ctx)
        progress = await tools["mcp__e__trigger-long-running-operation"].call(
            {"duration": 0.2, "steps": 2}, ctx
        )
        resources = await list_resources(manager, "e")
        prompts = await list_prompts(manager, "e")
        filled = await get_prompt(manager, "e", "args-prompt", {"city": "Oslo"})
        first = resources.resources[0]
        [content] = await read_resource(manager, "e", first.uri)
    assert len(asked) == 1 and asked[0].server == "e"
    assert "declined" in str(elicited.content)
    assert tmp_path.as_uri() in str(roots.content)
    assert progress.is_error is False
    updates = [m.data for m in seen if isinstance(m, SystemMessage)]
    assert [(u["progress"], u["total"]) for u in updates] == [(1.0, 2.0), (2.0, 2.0)]
    assert "args-prompt" in {p.name for p in prompts.prompts}
    assert filled.text == "What's weather in Oslo?"
    assert content.text
