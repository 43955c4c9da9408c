"""MCP prompts and live state through both compat layers, against the real stdio server."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import full_config

from loopwright.compat.claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient
from loopwright.compat.openai_agents import UserError
from loopwright.compat.openai_agents.mcp import MCPServerStdio
from loopwright.models.scripted import ScriptedModel, text


async def test_openai_layer_lists_and_gets_prompts() -> None:
    config = full_config()
    params = {"command": config["command"], "args": config["args"]}
    async with MCPServerStdio(params, name="full", client_session_timeout_seconds=20) as server:
        listed = await server.list_prompts()
        got = await server.get_prompt("review", {"language": "Python"})
        with pytest.raises(UserError, match="MCP prompt 'nope' on server 'full' failed"):
            await server.get_prompt("nope")
    assert {p.name for p in listed.prompts} == {"review", "two_parts"}
    assert got.messages[0].content.text == "Review this Python code, looking for bugs."


async def test_openai_layer_prompts_need_a_connection() -> None:
    server = MCPServerStdio({"command": "true"}, name="idle")
    with pytest.raises(UserError, match="is not connected"):
        await server.list_prompts()


async def test_claude_layer_prompt_command_status_and_toggle(tmp_path: Path) -> None:
    model = ScriptedModel([text("reviewed")])
    options = ClaudeAgentOptions(
        model=model,
        cwd=str(tmp_path),
        mcp_servers={"full": full_config()},
        setting_sources=[],
        permission_mode="bypassPermissions",
    )
    async with ClaudeSDKClient(options) as client:
        await client.query("/mcp__full__review TypeScript")
        [m async for m in client.receive_response()]
        await client.toggle_mcp_server("full", False)
        off = await client.get_mcp_status()
        await client.reconnect_mcp_server("full")
        on = await client.get_mcp_status()
    sent = model.requests[0].messages[-1].content
    assert "Review this TypeScript code, looking for bugs." in str(sent)
    assert off["mcpServers"][0]["status"] == "disabled"
    assert on["mcpServers"][0]["status"] == "connected"
