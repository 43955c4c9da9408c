"""Client sessions, interrupts and cancellation."""

import asyncio
import os
from pathlib import Path

from loopwright import Client, Options, run, tool
from loopwright.messages import (
    AssistantMessage,
    Message,
    ResultMessage,
    UserMessage,
)
from loopwright.testing import FunctionModel, ScriptedModel, text, tool_call, tool_calls
from support import base_options, tool_results


def process_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie awaiting its reaper."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def gone_within(pid: int, timeout: float = 5.0) -> bool:
    # A killed process disappears asynchronously; poll with a deadline instead of sleeping.
    deadline = asyncio.get_running_loop().time() + timeout
    while process_alive(pid):
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def wait_for_file(path: Path, timeout: float = 10.0) -> str:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} was never written")


async def test_client_keeps_the_conversation_across_queries() -> None:
    model = ScriptedModel([text("first answer"), text("second answer")])
    async with Client(base_options(model, tools=[])) as client:
        await client.query("one")
        first = [m async for m in client.receive_response()]
        await client.query("two")
        second = [m async for m in client.receive_response()]
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "first answer"
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "second answer"
    assert first[-1].session_id == second[-1].session_id
    history = model.requests[1].messages
    assert [m.type for m in history] == ["user", "assistant", "user"]


async def test_streaming_input_answers_each_message_in_one_session() -> None:
    async def prompts():  # type: ignore[no-untyped-def]
        yield "a"
        yield "b"

    model = ScriptedModel([text("A"), text("B")])
    result = await run(prompts(), base_options(model, tools=[]))
    assert result.result == "B"
    assert len(model.requests[1].messages) == 3


async def test_interrupt_mid_tool_answers_every_call_and_kills_the_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    started = asyncio.Event()

    @tool(read_only=True)
    async def marker() -> str:
        """Signals that the batch is running."""
        started.set()
        return "marked"

    command = f"sleep 60 & echo $! > {pid_file}; wait"
    model = ScriptedModel([tool_calls([("marker", {}), ("Bash", {"command": command})])])
    messages: list[Message] = []
    async with Client(base_options(model, tools=[marker, "Bash"], cwd=tmp_path)) as client:
        child_pid = -1
        await client.query("go")
        async for message in client.receive_response():
            messages.append(message)
            if isinstance(message, AssistantMessage):
                child_pid = int(await wait_for_file(pid_file))
                await client.interrupt()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "interrupted"
    assistant = next(m for m in messages if isinstance(m, AssistantMessage))
    answered = tool_results(messages)
    assert [r.tool_use_id for r in answered] == [c.id for c in assistant.tool_calls]
    assert answered[0].text == "marked"
    assert answered[1].is_error and "Interrupted" in answered[1].text
    assert started.is_set()
    assert await gone_within(child_pid)


async def test_interrupt_while_the_model_streams_ends_with_interrupted() -> None:
    gate = asyncio.Event()

    async def slow_answer(request):  # type: ignore[no-untyped-def]
        await gate.wait()
        return text("never")

    from loopwright.testing import FunctionModel

    async with Client(base_options(FunctionModel(slow_answer), tools=[])) as client:
        await client.query("go")
        messages = []
        async for message in client.receive_response():
            messages.append(message)
            if isinstance(message, UserMessage):
                await client.interrupt()
    assert isinstance(messages[-1], ResultMessage)
    assert messages[-1].subtype == "interrupted"


async def test_cancelling_the_consumer_still_answers_pending_calls(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    model = ScriptedModel([tool_call("Bash", command=f"sleep 60 & echo $! > {pid_file}; wait")])
    from loopwright.loop.run import agent_loop
    from loopwright.session.assemble import assemble_session as open_session

    session = await open_session(base_options(model, tools=["Bash"], cwd=tmp_path))

    async def consume() -> None:
        async for _ in agent_loop(session, UserMessage("go")):
            pass

    task = asyncio.create_task(consume())
    child_pid = int(await wait_for_file(pid_file))
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    last = session.conversation.messages[-1]
    assert isinstance(last, UserMessage) and tool_results([last])[0].is_error
    assert await gone_within(child_pid)


async def test_prompts_sent_while_a_response_runs_are_answered_in_order() -> None:
    model = ScriptedModel([text("first"), text("second")])
    async with Client(base_options(model, tools=[])) as client:
        await client.query("one")
        await client.query("two")
        first = [m async for m in client.receive_response()]
        second = [m async for m in client.receive_response()]
        usage = client.get_context_usage()
    assert isinstance(first[-1], ResultMessage) and first[-1].result == "first"
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "second"
    assert usage["messages"] == 4 and usage["window"] > 0


async def test_set_model_switches_for_the_next_request() -> None:
    first, second = ScriptedModel([text("a")], name="m1"), ScriptedModel([text("b")], name="m2")
    async with Client(base_options(first, tools=[])) as client:
        await client.query("x")
        [m async for m in client.receive_response()]
        await client.set_model(second)
        await client.query("y")
        result = [m async for m in client.receive_response()][-1]
    assert isinstance(result, ResultMessage) and result.result == "b"
    assert list(result.model_usage) == ["m2"]
    first.assert_complete()
    second.assert_complete()


class ClosableModel(FunctionModel):
    def __init__(self, name: str) -> None:
        super().__init__(lambda request: text(f"from {name}"), name=name)
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


async def test_set_model_leaves_models_the_user_built_open() -> None:
    # A Model object belongs to the user (it may serve other sessions); only providers
    # loopwright made from model strings are closed with the session (tests/models).
    first, second = ClosableModel("first"), ClosableModel("second")
    async with Client(base_options(first)) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        await client.set_model(second)
        await client.query("two")
        [m async for m in client.receive_response()]
    assert not second.closed
    assert not first.closed


async def test_background_shells_are_killed_when_the_session_ends(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    model = ScriptedModel(
        [
            tool_call(
                "Bash", command=f"echo $$ > {pid_file}; exec sleep 60", run_in_background=True
            ),
            # Wait (in the session) until the background shell is surely running.
            tool_call("Bash", command=f"until [ -s {pid_file} ]; do sleep 0.01; done"),
            text("started it"),
        ]
    )
    result = await run(
        "go",
        base_options(model, tools=["Bash"], cwd=tmp_path),
    )
    assert result.subtype == "success"
    pid = int(await wait_for_file(pid_file))
    assert await gone_within(pid)


async def test_interrupt_with_nothing_running_does_not_stop_the_next_prompt() -> None:
    model = ScriptedModel([text("a"), text("b")])
    async with Client(Options(model=model, tools=[], setting_sources=[])) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        await client.interrupt()  # idle: nothing to stop
        await client.query("two")
        result = [m async for m in client.receive_response()][-1]
    assert isinstance(result, ResultMessage) and result.result == "b"


async def test_editing_the_callers_options_does_not_change_a_running_session() -> None:
    @tool("noop", "Does nothing.", {})
    async def noop(args: dict[str, object]) -> str:
        return "ok"

    model = ScriptedModel([text("first"), tool_call("noop"), text("second")])
    options = base_options(model, tools=[noop], max_turns=5)
    async with Client(options) as client:
        await client.query("one")
        [m async for m in client.receive_response()]
        options.max_turns = 0  # the caller reuses its Options for another client
        await client.query("two")
        result = [m async for m in client.receive_response()][-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.result == "second"
