"""A Client attaches to a session that another process is running: it sees the messages
so far, then new ones as they are written, until the run in progress ends."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from loopwright import Client, Options, run
from loopwright.messages import AssistantMessage, Message, ResultMessage, ToolUseBlock
from loopwright.testing import ScriptedModel, text

# Runs one session in a store, calling a tool that waits for a line on stdin: the test
# decides when the run may go on. Prints "waiting" once the tool has been called.
_WRITER = """
import sys
from loopwright import Options, run_sync, tool
from loopwright.testing import ScriptedModel, text, tool_call

store, session_id, resume = sys.argv[1], sys.argv[2], sys.argv[3] == "resume"

@tool(read_only=True)
def wait_for_go() -> str:
    \"\"\"Wait until the test says go.\"\"\"
    print("waiting", flush=True)
    return sys.stdin.readline().strip()

options = Options(
    model=ScriptedModel([tool_call("wait_for_go"), text("finished live")]),
    tools=[wait_for_go],
    allowed_tools=["wait_for_go"],
    setting_sources=[],
    session_store=store,
    session_id=None if resume else session_id,
    resume=session_id if resume else None,
)
print(run_sync("work", options).subtype, flush=True)
"""


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:{tmp_path / 'sessions.db'}"


@pytest.fixture
def writers() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _writer_in_its_tool(
    writers: list[subprocess.Popen[str]], store: str, session_id: str, mode: str
) -> subprocess.Popen[str]:
    """Another process writing ``session_id``, returned once it is inside its tool call."""
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, store, session_id, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    writers.append(writer)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "waiting"
    return writer


def _calls_the_tool(message: Message) -> bool:
    return isinstance(message, AssistantMessage) and any(
        isinstance(b, ToolUseBlock) and b.name == "wait_for_go" for b in message.content
    )


async def _follow_and_release(
    stream: AsyncIterator[Message], writer: subprocess.Popen[str]
) -> list[Message]:
    """Everything the stream yields; once the tool call shows, the writer may finish."""
    assert writer.stdin is not None
    seen: list[Message] = []
    async for message in stream:
        seen.append(message)
        if _calls_the_tool(message):
            assert writer.poll() is None  # shown live, while the other process runs
            writer.stdin.write("go\n")
            writer.stdin.flush()
    return seen


async def test_a_client_attaches_to_a_session_another_process_is_running(
    store: str, writers: list[subprocess.Popen[str]]
) -> None:
    writer = _writer_in_its_tool(writers, store, "live", "new")
    client = Client(Options(session_store=store, setting_sources=[]))
    seen = await _follow_and_release(client.attach("live"), writer)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "success"
    assert [type(m).__name__ for m in seen] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "ResultMessage",
    ]
    last = seen[-1]
    assert isinstance(last, ResultMessage) and last.result == "finished live"


async def test_attaching_to_a_resumed_session_follows_the_run_in_progress(
    store: str, writers: list[subprocess.Popen[str]]
) -> None:
    earlier = Options(
        model=ScriptedModel([text("earlier run")]),
        setting_sources=[],
        session_store=store,
        session_id="again",
    )
    assert (await run("first", earlier)).result == "earlier run"
    writer = _writer_in_its_tool(writers, store, "again", "resume")
    client = Client(Options(session_store=store, setting_sources=[]))
    seen = await _follow_and_release(client.attach("again"), writer)
    results = [m.result for m in seen if isinstance(m, ResultMessage)]
    assert results == ["earlier run", "finished live"]  # not stopped at the old result
    assert isinstance(seen[-1], ResultMessage)


async def test_attaching_to_a_finished_session_shows_it_and_returns() -> None:
    options = Options(model=ScriptedModel([text("all done")]), setting_sources=[])
    result = await run("go", options)
    seen = [m async for m in Client(Options(setting_sources=[])).attach(result.session_id)]
    assert isinstance(seen[-1], ResultMessage) and seen[-1].uuid == result.uuid
