"""What the loop records can always be resumed: no message lost or written twice, and a
crash after any entry leaves a history the providers accept."""

from __future__ import annotations

import asyncio
from pathlib import Path

from loopwright import AgentDefinition, Client, Options, query, tool
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    Usage,
    UserMessage,
)
from loopwright.models.anthropic_body import anthropic_messages
from loopwright.models.base import ModelRequest
from loopwright.stores import JSONLStore, check_pairing, get_session_messages, restore
from loopwright.testing import FunctionModel, ScriptedModel, Step, text, tool_call, tool_calls


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


@tool(read_only=True)
def peek(path: str) -> str:
    """Look at a file."""
    return f"contents of {path}: " + "x" * 3000


def _summariser_or(steps: list[Step]) -> FunctionModel:
    def answer(request: ModelRequest) -> Step:
        if request.metadata.get("purpose") == "compaction":
            return text("summary: peeked at a, b, c; the reviewer said fine")
        return steps.pop(0)

    return FunctionModel(answer)


def _wire_problems(messages: list[AssistantMessage | UserMessage]) -> list[str]:
    """What the Messages API would refuse in ``messages`` once converted to its wire form."""
    wire = anthropic_messages(messages)
    problems: list[str] = []
    for index, message in enumerate(wire):
        calls = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if not calls:
            continue
        following = wire[index + 1]["content"] if index + 1 < len(wire) else []
        leading: list[str] = []
        for block in following:
            if block["type"] != "tool_result":
                break
            leading.append(block["tool_use_id"])
        if sorted(leading) != sorted(calls):
            problems.append(f"wire message {index}: calls {calls} answered by {leading}")
    return problems


async def test_a_crash_after_any_entry_resumes_to_a_history_providers_accept(
    tmp_path: Path,
) -> None:
    reviewer = AgentDefinition(description="Reviews", prompt="Review only.", tools=["peek"])
    model = _summariser_or(
        [
            tool_calls([("peek", {"path": "a"}), ("peek", {"path": "b"})]),
            tool_call("Agent", description="r", prompt="review a", subagent_type="reviewer"),
            tool_call("peek", path="a"),  # the subagent's turn
            text("fine"),  # the subagent's report
            text("reviewed"),
            tool_call("peek", path="c"),
            text("done"),
        ]
    )
    options = Options(
        permission_mode="bypassPermissions",
        model=model,
        cwd=tmp_path,
        tools=[peek, "Agent"],
        agents={"reviewer": reviewer},
        setting_sources=[],
    )
    results: list[ResultMessage] = []
    async with Client(options) as client:
        for prompt in ("look at a and b, then get a review", "/compact", "now c"):
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    results.append(message)
    assert [r.subtype for r in results] == ["success"] * 3
    store = JSONLStore(cwd=tmp_path)
    entries = await store.load(results[0].session_id)
    assert any(e.kind == "compact" for e in entries)
    previous = Usage()
    for end in range(1, len(entries) + 1):
        restored = restore(entries[:end])
        assert check_pairing(restored.messages) == [], end
        assert _wire_problems(restored.messages) == [], end
        uuids = [m.uuid for m in restored.messages]
        assert len(uuids) == len(set(uuids)), end
        usage = restored.usage
        assert usage.input_tokens >= previous.input_tokens, end  # never counted twice
        previous = usage
    total = Usage()
    for result in results:
        total = total + result.usage
    assert restore(entries).usage == total
    assert restore(entries).num_turns == sum(r.num_turns for r in results)
