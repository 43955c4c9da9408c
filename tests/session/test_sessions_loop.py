"""Sessions through the real loop: resume, continue, fork, crash recovery, compaction."""

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from loopwright import Options, run
from loopwright.context.compaction import SUMMARY_SYSTEM_PROMPT
from loopwright.context.tokens import estimate_tokens
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ModelRequest
from loopwright.stores import JSONLStore, check_pairing, get_session_messages
from loopwright.testing import FunctionModel, ScriptedModel, Step, text, tool_call
from support import base_options

CLI = [sys.executable, "-m", "loopwright.cli.main"]


async def test_resume_restores_the_conversation(tmp_path: Path) -> None:
    first = await run(
        "remember 42",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("ok")]),
            cwd=tmp_path,
            tools=[],
        ),
    )
    model = ScriptedModel([text("it was 42")])
    second = await run(
        "what number?",
        Options(
            permission_mode="bypassPermissions",
            model=model,
            cwd=tmp_path,
            tools=[],
            resume=first.session_id,
        ),
    )
    assert second.session_id == first.session_id
    sent = model.requests[0].messages
    assert [m.type for m in sent] == ["user", "assistant", "user"]
    assert sent[0].content == "remember 42"


async def test_continue_picks_the_latest_session_in_the_cwd(tmp_path: Path) -> None:
    await run(
        "one",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("a")]),
            cwd=tmp_path,
            tools=[],
        ),
    )
    latest = await run(
        "two",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("b")]),
            cwd=tmp_path,
            tools=[],
        ),
    )
    model = ScriptedModel([text("c")])
    result = await run(
        "three",
        Options(
            permission_mode="bypassPermissions",
            model=model,
            cwd=tmp_path,
            tools=[],
            continue_conversation=True,
        ),
    )
    assert result.session_id == latest.session_id
    assert model.requests[0].messages[0].content == "two"


async def test_resume_restores_cumulative_usage_and_read_state(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("hello\n")
    first = await run(
        "read",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([tool_call("Read", file_path=str(target)), text("read it")]),
            cwd=tmp_path,
            tools=["Read", "Edit"],
        ),
    )
    edit = {"file_path": str(target), "old_string": "hello", "new_string": "bye"}
    model = ScriptedModel([tool_call("Edit", **edit), text("edited")])
    await run(
        "edit",
        Options(
            permission_mode="bypassPermissions",
            model=model,
            cwd=tmp_path,
            tools=["Read", "Edit"],
            resume=first.session_id,
        ),
    )
    assert target.read_text() == "bye\n"  # the Read before the restart still counts


async def test_fork_leaves_the_original_byte_identical(tmp_path: Path) -> None:
    home = Path(os.environ["LOOPWRIGHT_HOME"])
    first = await run(
        "start",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("a")]),
            cwd=tmp_path,
            tools=[],
        ),
    )
    [original] = list(home.rglob(f"{first.session_id}.jsonl"))
    before = original.read_bytes()
    forked = await run(
        "branch",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("b")]),
            cwd=tmp_path,
            tools=[],
            resume=first.session_id,
            fork_session=True,
        ),
    )
    assert forked.session_id != first.session_id
    assert original.read_bytes() == before
    messages = await get_session_messages(forked.session_id, cwd=tmp_path)
    assert [m.content for m in messages if isinstance(m, UserMessage)] == ["start", "branch"]


def _write_script(path: Path, steps: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump(steps))
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    return subprocess.run(
        [*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


async def test_kill_9_mid_tool_then_resume_continues_without_orphans(tmp_path: Path) -> None:
    marker = tmp_path / "tool-started"
    script = _write_script(
        tmp_path / "crash.yaml",
        [
            {
                "text": "running",
                "tool_call": {"name": "Bash", "input": {"command": f"touch {marker}; sleep 60"}},
            },
        ],
    )
    process = subprocess.Popen(
        [
            *CLI,
            "-p",
            "do the long thing",
            "--model",
            f"scripted:{script}",
            "--cwd",
            str(tmp_path),
            "--session-id",
            "crashed-session",
            "--output-format",
            "stream-json",
            "--allowed-tools",
            "Bash",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = asyncio.get_running_loop().time() + 30
    while not marker.exists():
        assert asyncio.get_running_loop().time() < deadline, "the tool never started"
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        await asyncio.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()

    resume_script = _write_script(tmp_path / "resume.yaml", [{"text": "recovered"}])
    done = _cli(
        "-p",
        "carry on",
        "--model",
        f"scripted:{resume_script}",
        "--resume",
        "crashed-session",
        "--output-format",
        "json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "recovered"

    messages = await get_session_messages("crashed-session", cwd=tmp_path)
    assert check_pairing(messages) == []
    calls = [
        b
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolUseBlock)
    ]
    results = [
        b
        for m in messages
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    assert len(calls) == len(results) == 1
    assert "interrupted" in results[0].text.lower()
    uuids = [m.uuid for m in messages]
    assert len(uuids) == len(set(uuids))
    prompts = [
        m.content for m in messages if isinstance(m, UserMessage) and isinstance(m.content, str)
    ]
    assert prompts == ["do the long thing", "carry on"]


def _is_summary_request(request: ModelRequest) -> bool:
    return SUMMARY_SYSTEM_PROMPT.splitlines()[0] in request.system


async def test_long_session_stays_within_a_small_window_through_compaction(tmp_path: Path) -> None:
    task = "TASK: count the lines of every generated report"
    big_output = "x" * 6000
    turns = 500
    seen_task_in_every_request: list[bool] = []
    summaries = 0
    max_context = 0

    def answer(request: ModelRequest) -> Step:
        nonlocal summaries, max_context
        if _is_summary_request(request):
            summaries += 1
            return text(
                f"Summary {summaries}: the user asked to count report lines; work continues."
            )
        seen_task_in_every_request.append(any(_mentions(m, task) for m in request.messages))
        prompt_tokens = estimate_tokens(
            request.messages, system=request.system, tools=request.tools
        )
        max_context = max(max_context, prompt_tokens)
        done = len(seen_task_in_every_request)
        # Report the prompt size as a provider would: the meter trusts provider counts.
        usage = Usage(input_tokens=prompt_tokens, output_tokens=20)
        if done > turns:
            return text("all reports counted", usage=usage)
        return tool_call("emit", n=done).with_(usage=usage)

    from loopwright import tool

    @tool(read_only=True)
    def emit(n: int) -> str:
        """Produce a big report."""
        return f"report {n}\n{big_output}"

    window = 20_000
    result = await run(
        task,
        Options(
            permission_mode="bypassPermissions",
            model=FunctionModel(answer),
            cwd=tmp_path,
            tools=[emit],
            context_window=window,
        ),
    )
    assert result.subtype == "success", result.errors
    assert result.num_turns == turns
    assert all(seen_task_in_every_request)
    assert max_context < window
    assert summaries >= 1
    messages = await get_session_messages(result.session_id, cwd=tmp_path)
    assert check_pairing(messages) == []


def _mentions(message: ConversationMessage, needle: str) -> bool:
    return needle in json.dumps(message.to_dict())


async def test_manual_compact_prompt_compacts_and_reports_a_boundary(tmp_path: Path) -> None:
    model = FunctionModel(
        lambda request: text(
            "summary of earlier work" if _is_summary_request(request) else "answer"
        )
    )
    from loopwright import Client

    async with Client(base_options(model, cwd=tmp_path, tools=[])) as client:
        # Long enough that a summary is smaller (a short chat is left as it is).
        long_tail = " details" * 500
        for prompt in (
            "first question" + long_tail,
            "second question" + long_tail,
            "/compact keep the numbers",
        ):
            await client.query(prompt)
            messages = [m async for m in client.receive_response()]
        await client.query("third question")
        [m async for m in client.receive_response()]
    boundary = [
        m for m in messages if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"
    ]
    assert boundary and boundary[0].data["trigger"] == "manual"
    summary_request = model.requests[2]
    assert "keep the numbers" in summary_request.system + json.dumps(
        [m.to_dict() for m in summary_request.messages]
    )
    after = json.dumps([m.to_dict() for m in model.requests[-1].messages])
    assert "summary of earlier work" in after and "first question" in after


async def test_sessions_cli_lists_and_shows(tmp_path: Path) -> None:
    result = await run(
        "listed prompt",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("a")]),
            cwd=tmp_path,
            tools=[],
        ),
    )
    listing = _cli("sessions", "list", "--json", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    rows = [json.loads(line) for line in listing.stdout.splitlines()]
    assert rows[0]["session_id"] == result.session_id and rows[0]["summary"] == "listed prompt"
    shown = _cli("sessions", "show", result.session_id, "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert [json.loads(line)["type"] for line in shown.stdout.splitlines()] == ["user", "assistant"]


async def test_unpersisted_sessions_write_nothing(tmp_path: Path) -> None:
    home = Path(os.environ["LOOPWRIGHT_HOME"])
    await run(
        "x",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("a")]),
            cwd=tmp_path,
            tools=[],
            persist_session=False,
        ),
    )
    assert not list(home.rglob("*.jsonl"))


async def test_a_store_object_can_be_passed(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path / "home", cwd=tmp_path)
    result = await run(
        "x",
        Options(
            permission_mode="bypassPermissions",
            model=ScriptedModel([text("a")]),
            cwd=tmp_path,
            tools=[],
            session_store=store,
        ),
    )
    assert await store.load(result.session_id)
    await store.aclose()


async def test_text_with_lone_surrogates_is_recorded_and_resumed(tmp_path: Path) -> None:
    odd = "report-\udcff.txt"  # how Python shows a file name that is not UTF-8
    model = ScriptedModel([text(f"found {odd}")])
    first = await run("list", Options(model=model, cwd=tmp_path, tools=[], setting_sources=[]))
    assert first.subtype == "success", first.errors
    messages = await get_session_messages(first.session_id, cwd=tmp_path)
    assert isinstance(messages[-1], AssistantMessage) and messages[-1].text == f"found {odd}"


async def test_a_client_reconnected_after_disconnect_answers_again(tmp_path: Path) -> None:
    from loopwright import Client

    client = Client(
        Options(
            model=ScriptedModel([text("a"), text("b")]), cwd=tmp_path, tools=[], setting_sources=[]
        )
    )
    for expected in ("a", "b"):
        await client.connect()
        await client.query("x")
        result = [m async for m in client.receive_response()][-1]
        await client.disconnect()
        assert isinstance(result, ResultMessage) and result.result == expected
