"""Tool output that UTF-8 cannot encode (names of files that are not UTF-8) reaches the model
as escapes, over the real wire, and the run goes on."""

from __future__ import annotations

import os
from pathlib import Path

from loopwright import Options, query
from loopwright.messages import Message, ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.anthropic import AnthropicModel
from loopwright.models.scripted import Step, text, tool_call
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.tools.base import tool


async def run_over_the_wire(
    step: Step, tmp_path: Path, **options: object
) -> tuple[list[Message], FakeAnthropicServer]:
    with FakeAnthropicServer([step, text("done")]) as server:
        model = AnthropicModel("claude-sonnet-4-5", api_key="k", base_url=server.base_url)
        settings = Options(
            model=model,
            cwd=tmp_path,
            permission_mode="bypassPermissions",
            setting_sources=[],
            max_retries=0,
            **options,  # type: ignore[arg-type]
        )
        messages = [m async for m in query("go", settings)]
    return messages, server


def only_result(messages: list[Message]) -> ToolResultBlock:
    [result] = [
        b
        for m in messages
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    return result


def assert_success(messages: list[Message]) -> None:
    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.subtype == "success", final.errors


async def test_glob_listing_a_file_name_that_is_not_utf8_does_not_end_the_run(
    tmp_path: Path,
) -> None:
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xff.txt"), "w") as planted:
        planted.write("x")
    step = tool_call("Glob", pattern="*.txt", path=str(tmp_path))
    messages, server = await run_over_the_wire(step, tmp_path)
    assert "caf\\xff.txt" in only_result(messages).text
    sent_back = server.requests[1].body["messages"][-1]["content"][0]
    assert "caf\\xff.txt" in str(sent_back["content"])
    assert_success(messages)


async def test_long_tool_output_with_lone_surrogates_is_cut_and_sent(tmp_path: Path) -> None:
    @tool("dump", "Dumps bytes.", {"type": "object"})
    def dump(args: dict[str, object]) -> str:
        return ("ok \udcfe \ud800 " * 20_000) + "end"

    messages, server = await run_over_the_wire(tool_call("dump"), tmp_path, tools=[dump])
    result = only_result(messages)
    assert result.text.startswith("ok \\xfe \ufffd ")
    assert "[output cut:" in result.text
    assert len(server.requests) == 2
    assert_success(messages)
