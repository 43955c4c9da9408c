"""The OpenAI Agents layer's MCPServerStreamableHttp with ``httpx_client_factory``: the
transport uses the client the factory makes (here: one that counts its requests and adds a
header), against the python demo server on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from mcp_support import HttpDemoServer

from loopwright.compat.openai_agents import Agent, Runner, UserError
from loopwright.compat.openai_agents.mcp import MCPServerStreamableHttp
from loopwright.testing import ScriptedModel, text, tool_call


async def test_http_client_factory_makes_the_transports_client(
    http_server: HttpDemoServer,
) -> None:
    made: list[dict[str, Any]] = []
    sent: list[httpx2.Request] = []

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        made.append({"headers": headers})

        async def record(request: httpx2.Request) -> None:
            sent.append(request)

        return httpx2.AsyncClient(
            headers={**(headers or {}), "X-Custom-Client": "agents-mcp-test"},
            timeout=httpx2.Timeout(60.0, read=120.0),
            event_hooks={"request": [record]},
        )

    params = {"url": http_server.url("/mcp"), "headers": {"X-Token": "t"}}
    async with MCPServerStreamableHttp({**params, "httpx_client_factory": factory}) as server:
        model = ScriptedModel([tool_call("add", a=20, b=22), text("42")])
        agent = Agent(name="A", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "add them")

    assert result.final_output == "42"
    assert made == [{"headers": {"X-Token": "t"}}]
    assert sent and all(r.headers["X-Custom-Client"] == "agents-mcp-test" for r in sent)
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert [o.output for o in outputs] == ["42"]


def test_a_factory_that_is_not_callable_is_refused() -> None:
    with pytest.raises(UserError, match=r"httpx2\.AsyncClient"):
        MCPServerStreamableHttp({"url": "http://127.0.0.1:1/mcp", "httpx_client_factory": 3})


async def test_a_remote_server_that_starts_late_is_waited_for() -> None:
    import asyncio
    import subprocess
    import sys

    from mcp_support import DEMO_SERVER, _free_port

    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, str(DEMO_SERVER), "--transport", "streamable-http"]
    loop = asyncio.get_running_loop()
    # Started only after the first connection attempt has been refused.
    starting = loop.run_in_executor(
        None,
        lambda: subprocess.Popen(
            [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ),
    )
    server = MCPServerStreamableHttp({"url": url})
    try:
        await server.connect()
        tools = [t.name for t in await server.list_tools()]
    finally:
        await server.cleanup()
        process = await starting
        process.kill()
        process.wait(timeout=10)
    assert "add" in tools
