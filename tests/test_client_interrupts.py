"""Client prompts meeting interrupts and disconnects: an interrupt stops the prompt it
meets (even mid-compaction) and reports its own reason; a disconnect runs nothing queued."""

import asyncio
from typing import Any

from loopwright import Client
from loopwright.hooks.runner import HookMatcher
from loopwright.messages import ResultMessage, Usage
from loopwright.models.base import ModelRequest
from loopwright.testing import FunctionModel, ScriptedModel, text, tool_call
from loopwright.types import PermissionResultDeny
from support import base_options, blob, ran, touch


async def test_interrupt_right_after_query_stops_that_prompt() -> None:
    ran.clear()
    model = ScriptedModel([tool_call("touch", path="x"), text("done")])
    async with Client(base_options(model)) as client:
        await client.query("go")
        await client.interrupt()
        messages = [m async for m in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert ran == []


async def test_disconnect_does_not_run_queued_prompts() -> None:
    ran.clear()
    model = ScriptedModel([tool_call("touch", path="x"), text("done")])
    async with Client(base_options(model)) as client:
        await client.query("go")
    assert ran == []
    assert model.requests == []


async def test_interrupt_during_compaction_is_honoured() -> None:
    ran.clear()
    compacting = asyncio.Event()
    release = asyncio.Event()

    async def answer(request: ModelRequest) -> Any:
        if "working memory" in request.system:  # the summariser
            compacting.set()
            await release.wait()
            return text("summary of the work so far")
        if compacting.is_set():
            return tool_call("touch", path="after-interrupt")
        # The provider reports a context that grows past the threshold after a few turns.
        return tool_call("blob").with_(usage=Usage(800 * len(request.messages), 5))

    model = FunctionModel(answer)
    options = base_options(model, tools=[blob, touch], context_window=4000, max_turns=30)
    async with Client(options) as client:
        await client.query("go")

        async def interrupt_when_compacting() -> None:
            await compacting.wait()
            await client.interrupt()
            release.set()

        helper = asyncio.create_task(interrupt_when_compacting())
        messages = [m async for m in client.receive_response()]
        helper.cancel()
    assert compacting.is_set()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert ran == []


async def test_interrupting_denial_reports_its_own_reason_not_a_stale_one() -> None:
    calls = 0

    async def stop_once(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"continue": False, "stopReason": "stopped by the first hook"}
        return {}

    def deny(name: str, input: dict[str, Any], ctx: Any) -> Any:
        return PermissionResultDeny("not now", interrupt=True)

    model = ScriptedModel([tool_call("touch", path="a"), tool_call("touch", path="b")])
    options = base_options(
        model,
        permission_mode="default",
        can_use_tool=deny,
        hooks={"PreToolUse": [HookMatcher(None, [stop_once])]},
    )
    async with Client(options) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        await client.query("two")
        second = [m async for m in client.receive_response()]
    result = second[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assert "stopped by the first hook" not in " ".join(result.errors)
