"""Live state of a session's servers: status, a server that dies and comes back, reconnect,
enable / disable, and the tool set following the servers between turns."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from mcp_support import full_config

from loopwright.client import Client
from loopwright.errors import ConfigurationError
from loopwright.mcp import McpManager
from loopwright.messages import Message, ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import Options
from loopwright.tools.base import ToolContext


def options(model: ScriptedModel, cwd: Path) -> Options:
    return Options(
        model=model,
        cwd=cwd,
        mcp_servers={"full": full_config(cwd)},
        setting_sources=[],
        permission_mode="bypassPermissions",
    )


async def ask(client: Client, prompt: str) -> list[Message]:
    await client.query(prompt)
    return [message async for message in client.receive_response()]


def tool_results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


async def wait_for(condition: Any, seconds: float = 20) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def test_stdio_server_that_dies_is_restarted_with_its_tools(ctx: ToolContext) -> None:
    async with McpManager(reconnect_delays=(0.05, 0.1)) as manager:
        await manager.start({"full": full_config()})
        pid_tool = next(t for t in manager.tools() if t.name == "mcp__full__pid")
        first_pid = int(str((await pid_tool.call({}, ctx)).content))
        crashed = await next(t for t in manager.tools() if t.name == "mcp__full__crash").call(
            {}, ctx
        )
        assert crashed.is_error is True
        await wait_for(lambda: manager.statuses()[0].reconnects == 1)
        await manager.wait_ready()
        [status] = manager.statuses()
        again = await pid_tool.call({}, ctx)  # the same Tool object works again
    assert status.status == "connected" and status.to_dict()["reconnects"] == 1
    assert int(str(again.content)) != first_pid


async def test_server_killed_while_idle_is_noticed_and_restarted(ctx: ToolContext) -> None:
    async with McpManager(reconnect_delays=(0.05,)) as manager:
        await manager.start({"full": full_config()})
        pid_tool = next(t for t in manager.tools() if t.name == "mcp__full__pid")
        os.kill(int(str((await pid_tool.call({}, ctx)).content)), signal.SIGKILL)
        # Nobody calls: the listen stream's end tells the owner the server is gone.
        await wait_for(lambda: manager.statuses()[0].reconnects == 1)
        await manager.wait_ready()
        assert manager.statuses()[0].status == "connected"
        assert (await pid_tool.call({}, ctx)).is_error is False


async def test_a_server_that_keeps_dying_stops_being_restarted(tmp_path: Path) -> None:
    killed: set[Path] = set()

    def kill_new_processes() -> bool:
        # The first process is killed once it is up (one that dies before its handshake
        # never started, and is rightly not restarted, however loaded the machine is); the
        # restarts are killed at once, so that none runs long enough to reset the series.
        ready = bool(killed) or manager.statuses()[0].status == "connected"
        for marker in tmp_path.glob("pid-*") if ready else ():
            if marker not in killed:
                killed.add(marker)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(marker.name[4:]), signal.SIGKILL)
        # The third process exists only once the owner decided on a second restart; its
        # death is then final (no third delay), so "failed" means given up, not "deciding".
        status = manager.statuses()[0]
        return len(killed) == 3 and status.status == "failed"

    async with McpManager(reconnect_delays=(0.01, 0.01)) as manager:
        await manager.start({"full": full_config(tmp_path)})
        try:
            await wait_for(kill_new_processes)
        except TimeoutError:
            raise AssertionError(f"killed {len(killed)}: {manager.statuses()[0]}") from None
        [status] = manager.statuses()
    assert status.reconnects == 2  # the whole series was tried, then it gave up
    assert len(killed) == 3


async def test_disable_hides_the_tools_and_enable_brings_them_back(tmp_path: Path) -> None:
    model = ScriptedModel([text("one"), text("two"), text("three")])
    async with Client(options(model, tmp_path)) as client:
        await ask(client, "first")
        disabled = await client.toggle_mcp_server("full", False)
        await ask(client, "second")
        enabled = await client.toggle_mcp_server("full", True)
        await ask(client, "third")
        status = client.mcp_status()
    names = [{t.name for t in r.tools} for r in model.requests]
    assert "mcp__full__pid" in names[0] and "ListMcpResources" in names[0]
    assert not any(n.startswith("mcp__full__") for n in names[1])
    assert "mcp__full__pid" in names[2]
    assert disabled["status"] == "disabled" and enabled["status"] == "connected"
    assert status == [{"name": "full", "status": "connected", "tools": 8}]


async def test_reconnect_now_restarts_the_server(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("mcp__full__pid"), text("a"), tool_call("mcp__full__pid"), text("b")]
    )
    async with Client(options(model, tmp_path)) as client:
        [before] = tool_results(await ask(client, "pid?"))
        status = await client.reconnect_mcp_server("full")
        [after] = tool_results(await ask(client, "pid again?"))
    assert status["status"] == "connected"
    assert before.content != after.content


async def test_tools_the_server_adds_are_offered_from_the_next_turn(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("mcp__full__grow"), text("grown"), tool_call("mcp__full__extra"), text("ok")]
    )
    async with Client(options(model, tmp_path)) as client:
        await ask(client, "grow")
        manager = client.session.state.resources["mcp"]
        await wait_for(lambda: any(t.name == "mcp__full__extra" for t in manager.tools()))
        [extra] = tool_results(await ask(client, "use the new tool"))
    assert "mcp__full__extra" not in {t.name for t in model.requests[0].tools}
    assert "mcp__full__extra" in {t.name for t in model.requests[2].tools}
    assert extra.content == "extra here"


async def test_live_state_calls_name_unknown_servers(tmp_path: Path) -> None:
    model = ScriptedModel([])
    async with Client(options(model, tmp_path)) as client:
        with pytest.raises(ConfigurationError, match="no MCP server named 'ghost'"):
            await client.reconnect_mcp_server("ghost")
        with pytest.raises(ConfigurationError, match="configured: full"):
            await client.toggle_mcp_server("ghost", False)


async def test_client_lists_and_gets_prompts_and_reads_resources(tmp_path: Path) -> None:
    async with Client(options(ScriptedModel([]), tmp_path)) as client:
        prompts = await client.list_prompts()
        got = await client.get_prompt("full", "review", {"language": "Rust"})
        resources = await client.list_resources("full")
        [content] = await client.read_resource("full", "notes://readme")
    assert {p.name for p in prompts} == {"review", "two_parts"}
    assert got.text == "Review this Rust code, looking for bugs."
    assert "notes://readme" in {r.uri for r in resources}
    assert content.text is not None and "4242" in content.text


async def test_prompt_api_without_mcp_servers_says_how_to_add_one(tmp_path: Path) -> None:
    opts = Options(model=ScriptedModel([]), cwd=tmp_path, setting_sources=[])
    async with Client(opts) as client:
        with pytest.raises(ConfigurationError, match="pass Options\\(mcp_servers="):
            await client.list_prompts()
        assert client.mcp_status() == []


def _final(messages: list[Message]) -> ResultMessage:
    final = messages[-1]
    assert isinstance(final, ResultMessage)
    return final
