"""MCP in a real session (Client / query with a scripted model): resource tools under
permissions, @server:uri mentions, /mcp__server__prompt commands, progress in the stream,
sampling through the session's model, elicitation through Options, interrupts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp_support import full_config

from loopwright.client import Client, query
from loopwright.mcp.host import ElicitationRequest, ElicitationResponse
from loopwright.messages import (
    Message,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import Options


def options(model: ScriptedModel, cwd: Path, **extra: Any) -> Options:
    settings: dict[str, Any] = {"permission_mode": "bypassPermissions", **extra}
    return Options(
        model=model,
        cwd=cwd,
        mcp_servers={"full": full_config(cwd)},
        setting_sources=[],
        **settings,
    )


async def run_all(prompt: str, opts: Options) -> list[Message]:
    return [message async for message in query(prompt, opts)]


def results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        block
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if isinstance(block, ToolResultBlock)
    ]


def request_text(model: ScriptedModel, index: int) -> str:
    request = model.requests[index]
    parts: list[str] = []
    for message in request.messages:
        content = message.content
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(b.text for b in content if isinstance(b, TextBlock))
    return "\n".join(parts)


async def test_model_lists_and_reads_resources_with_the_resource_tools(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_call("ListMcpResources"),
            tool_call("ReadMcpResource", server="full", uri="notes://readme"),
            text("done"),
        ]
    )
    messages = await run_all("what notes are there?", options(model, tmp_path))
    listed, read = results(messages)
    assert "notes://readme" in str(listed.content)
    assert "launch code is 4242" in str(read.content)
    assert {"ListMcpResources", "ReadMcpResource"} <= {t.name for t in model.requests[0].tools}


async def test_mcp_server_deny_rule_covers_its_resources(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("ReadMcpResource", server="full", uri="notes://readme"), text("ok")]
    )
    opts = options(model, tmp_path, permission_mode="default", disallowed_tools=["mcp__full"])
    [denied] = results(await run_all("read it", opts))
    assert denied.is_error is True
    assert "4242" not in str(denied.content)


async def test_mcp_server_allow_rule_approves_its_resources(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("ReadMcpResource", server="full", uri="notes://readme"), text("ok")]
    )
    opts = options(model, tmp_path, permission_mode="dontAsk", allowed_tools=["mcp__full"])
    [read] = results(await run_all("read it", opts))
    assert read.is_error is False and "4242" in str(read.content)


async def test_long_resource_text_is_cut_and_spilled_like_any_tool_output(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("ReadMcpResource", server="full", uri="notes://big"), text("ok")]
    )
    [read] = results(await run_all("read the big one", options(model, tmp_path)))
    content = str(read.content)
    assert "[output cut:" in content
    assert len(content) < 120_000


async def test_mention_attaches_the_resource_to_the_prompt(tmp_path: Path) -> None:
    model = ScriptedModel([text("the code is 4242")])
    await run_all("What does @full:notes://readme say?", options(model, tmp_path))
    sent = request_text(model, 0)
    assert "What does @full:notes://readme say?" in sent
    assert "The launch code is 4242." in sent


async def test_prompt_slash_command_sends_the_servers_prompt(tmp_path: Path) -> None:
    model = ScriptedModel([text("reviewed")])
    await run_all("/mcp__full__review Go focus=style", options(model, tmp_path))
    assert request_text(model, 0) == "Review this Go code, looking for style."


async def test_prompt_command_missing_an_argument_says_how_to_call_it(tmp_path: Path) -> None:
    model = ScriptedModel([text("?")])
    messages = await run_all("/mcp__full__review", options(model, tmp_path))
    notices = [
        m.data["message"]
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]
    assert any("needs language; use: /mcp__full__review <language> [focus]" in n for n in notices)
    assert request_text(model, 0) == "/mcp__full__review"  # sent as typed


async def test_progress_of_a_call_is_in_the_stream(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("mcp__full__count", steps=2), text("done")])
    messages = await run_all("count", options(model, tmp_path))
    progress = [
        m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "mcp_progress"
    ]
    assert [p["message"] for p in progress] == ["step 1", "step 2"]


async def test_sampling_runs_on_the_sessions_model_when_allowed(tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("mcp__full__summarise", text="a very long text"), text("five words"), text("ok")]
    )
    messages = await run_all("summarise", options(model, tmp_path, mcp_sampling=True))
    [summary] = results(messages)
    assert summary.content == "summary: five words"
    sampling = model.requests[1]
    assert sampling.system == "Summarise in five words."
    assert sampling.max_tokens == 50
    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.subtype == "success"


async def test_elicitation_goes_to_options_on_elicitation(tmp_path: Path) -> None:
    async def answer(request: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse("accept", {"date": "friday", "seats": 4})

    model = ScriptedModel([tool_call("mcp__full__book"), text("booked")])
    messages = await run_all("book", options(model, tmp_path, on_elicitation=answer))
    [booked] = results(messages)
    assert booked.content == "booked 4 seats on friday"


async def test_interrupt_cancels_the_running_mcp_call(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("mcp__full__wait_forever", tag="turn"), text("never")])
    async with Client(options(model, tmp_path)) as client:
        await client.query("wait")
        seen: list[Message] = []

        async def read() -> None:
            async for message in client.receive_response():
                seen.append(message)

        reading = asyncio.create_task(read())
        async with asyncio.timeout(20):
            while not (tmp_path / "turn.started").exists():
                await asyncio.sleep(0.02)
            await client.interrupt()
            await reading
            while not (tmp_path / "turn.cancelled").exists():
                await asyncio.sleep(0.02)
    final = seen[-1]
    assert isinstance(final, ResultMessage) and final.subtype == "interrupted"
