"""Review findings on sessions and providers, driven through the real loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

from loopwright import Client, Options, query
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    UserMessage,
)
from loopwright.models.base import ModelRequest
from loopwright.sessions import JSONLStore, get_session_messages
from loopwright.testing import FunctionModel, ScriptedModel, Step, text, tool_call


def _texts(messages: list[AssistantMessage | UserMessage]) -> list[str]:
    out: list[str] = []
    for message in messages:
        if isinstance(message.content, str):
            out.append(message.content)
        else:
            out.append("".join(b.text for b in message.content if isinstance(b, TextBlock)))
    return out


async def test_the_same_user_message_sent_twice_loses_nothing_on_resume(tmp_path: Path) -> None:
    ping = UserMessage("ping")
    options = Options(
        permission_mode="bypassPermissions",
        model=ScriptedModel([text("a"), text("b"), text("c")]),
        cwd=tmp_path,
        tools=[],
        setting_sources=[],
    )
    result: ResultMessage | None = None
    async with Client(options) as client:
        for prompt in (ping, "middle", ping):
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    result = message
    assert result is not None
    messages = await get_session_messages(result.session_id, cwd=tmp_path)
    assert _texts(messages) == ["ping", "a", "middle", "b", "ping", "c"]


async def test_cancelling_the_consumer_writes_no_message_twice(tmp_path: Path) -> None:
    calls = 0
    todo = {"content": "x", "status": "pending", "activeForm": "doing x"}

    async def answer(request: ModelRequest) -> Step:
        nonlocal calls
        calls += 1
        if calls == 1:
            return tool_call("TodoWrite", todos=[todo])
        await asyncio.sleep(30)
        return text("never")

    options = Options(
        permission_mode="bypassPermissions",
        model=FunctionModel(answer),
        cwd=tmp_path,
        setting_sources=[],
    )
    session_ids: list[str] = []

    async def consume() -> None:
        async for message in query("go", options):
            if isinstance(message, SystemMessage) and message.subtype == "init":
                session_ids.append(str(message.data["session_id"]))

    task = asyncio.create_task(consume())
    while calls < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    entries = await JSONLStore(cwd=tmp_path).load(session_ids[0])
    uuids = [e.uuid for e in entries if e.kind == "message"]
    assert len(uuids) == len(set(uuids))
