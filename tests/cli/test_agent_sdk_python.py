"""The official Python Claude Agent SDK (claude-agent-sdk) with loopwright as its CLI.

Each test is an SDK program as users write it, with ``cli_path`` set to the loopwright
console script; the model's side is scripted (a scripted model file, or OpenAI's fake
server on 127.0.0.1). The tests check the typed messages the SDK yields.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from loopwright.models.scripted import Step, text, tool_call, tool_calls

from .agent_sdk_engines import ENGINES, Engine, engine, loopwright_cli

sdk = pytest.importorskip(
    "claude_agent_sdk", reason="pip install claude-agent-sdk (it is in requirements-dev.lock)"
)


@pytest.fixture(autouse=True)
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "LOOPWRIGHT_MODEL"):
        monkeypatch.delenv(name, raising=False)


def options(run: Engine, cwd: Path, **fields: Any) -> Any:
    return sdk.ClaudeAgentOptions(
        cli_path=loopwright_cli(), model=run.model, env=run.env, cwd=str(cwd), **fields
    )


async def collect(prompt: Any, opts: Any) -> list[Any]:
    return [message async for message in sdk.query(prompt=prompt, options=opts)]


async def one_prompt(text_: str) -> AsyncIterator[dict[str, Any]]:
    """A streaming prompt: what query() needs for can_use_tool."""
    yield {"type": "user", "message": {"role": "user", "content": text_}}


def of_type(messages: list[Any], kind: type) -> list[Any]:
    return [m for m in messages if isinstance(m, kind)]


def tool_results(messages: list[Any]) -> list[Any]:
    return [
        block
        for message in of_type(messages, sdk.UserMessage)
        if isinstance(message.content, list)
        for block in message.content
        if isinstance(block, sdk.ToolResultBlock)
    ]


def result_of(messages: list[Any]) -> Any:
    results = of_type(messages, sdk.ResultMessage)
    assert len(results) == 1, f"expected one result, got {messages}"
    return results[0]


def steps(*items: Step) -> list[Step]:
    return list(items)


@pytest.mark.parametrize("kind", ENGINES)
async def test_one_shot_query_yields_init_the_answer_and_a_success_result(
    kind: str, tmp_path: Path
) -> None:
    with engine(kind, steps(text("Hello from loopwright")), tmp_path) as run:
        messages = await collect("say hello", options(run, tmp_path))
    init = of_type(messages, sdk.SystemMessage)[0]
    assert init.subtype == "init"
    assert init.data["claude_code_version"].count(".") == 2
    answer = of_type(messages, sdk.AssistantMessage)
    assert [b.text for b in answer[0].content] == ["Hello from loopwright"]
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 1)
    assert result.result == "Hello from loopwright"
    assert result.session_id == init.data["session_id"]
    assert result.model_usage and "inputTokens" in next(iter(result.model_usage.values()))
    assert not of_type(messages, sdk.UserMessage), "the prompt must not be echoed"


@pytest.mark.parametrize("kind", ENGINES)
async def test_a_built_in_tool_runs_and_its_result_comes_back(kind: str, tmp_path: Path) -> None:
    script = steps(tool_call("Bash", command="echo hi-from-bash"), text("done"))
    with engine(kind, script, tmp_path) as run:
        messages = await collect("run it", options(run, tmp_path, allowed_tools=["Bash"]))
    calls = [b for m in of_type(messages, sdk.AssistantMessage) for b in m.content]
    assert any(isinstance(b, sdk.ToolUseBlock) and b.name == "Bash" for b in calls)
    [result_block] = tool_results(messages)
    assert "hi-from-bash" in str(result_block.content) and not result_block.is_error
    assert result_of(messages).num_turns == 2


async def test_tools_empty_hands_the_model_no_built_in_tools(tmp_path: Path) -> None:
    with engine("scripted", steps(text("ok")), tmp_path) as run:
        messages = await collect("hi", options(run, tmp_path, tools=[]))
    init = of_type(messages, sdk.SystemMessage)[0]
    assert "Bash" not in init.data["tools"] and "Write" not in init.data["tools"]


@pytest.mark.parametrize("kind", ENGINES)
async def test_an_in_process_sdk_mcp_tool_is_called_in_the_sdk_process(
    kind: str, tmp_path: Path
) -> None:
    calls: list[dict[str, Any]] = []

    @sdk.tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    server = sdk.create_sdk_mcp_server("calc", tools=[add])
    script = steps(tool_call("mcp__calc__add", a=2, b=3), text("it is 5"))
    with engine(kind, script, tmp_path) as run:
        opts = options(
            run, tmp_path, mcp_servers={"calc": server}, allowed_tools=["mcp__calc__add"]
        )
        messages = await collect("add", opts)
    assert calls == [{"a": 2, "b": 3}]
    [block] = tool_results(messages)
    assert "5" in str(block.content) and not block.is_error
    init = of_type(messages, sdk.SystemMessage)[0]
    assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"]


@pytest.mark.parametrize("kind", ENGINES)
async def test_can_use_tool_allows_with_a_rewritten_input_and_denies_with_its_message(
    kind: str, tmp_path: Path
) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def decide(name: str, input: dict[str, Any], context: Any) -> Any:
        asked.append((name, input))
        if "first" in input["command"]:
            return sdk.PermissionResultAllow(updated_input={"command": "echo rewritten"})
        return sdk.PermissionResultDeny(message="no second command today")

    script = steps(
        tool_call("Bash", command="touch first"),
        tool_call("Bash", command="touch second"),
        text("done"),
    )
    with engine(kind, script, tmp_path) as run:
        messages = await collect(one_prompt("go"), options(run, tmp_path, can_use_tool=decide))
    # echo is read-only (never asked about); touch writes, so the SDK is asked.
    assert [command["command"] for _, command in asked] == ["touch first", "touch second"]
    first, second = tool_results(messages)
    assert "rewritten" in str(first.content) and not first.is_error
    assert not (tmp_path / "first").exists() and not (tmp_path / "second").exists()
    assert second.is_error and "no second command today" in str(second.content)
    assert result_of(messages).subtype == "success"


@pytest.mark.parametrize("kind", ENGINES)
async def test_a_pre_tool_use_hook_callback_sees_the_call_and_can_deny_it(
    kind: str, tmp_path: Path
) -> None:
    seen: list[dict[str, Any]] = []

    async def guard(input: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
        seen.append(input)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "rm is not allowed here",
            }
        }

    hooks = {"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard])]}
    script = steps(tool_call("Bash", command="rm -rf build"), text("ok, not removed"))
    with engine(kind, script, tmp_path) as run:
        opts = options(run, tmp_path, hooks=hooks, allowed_tools=["Bash"])
        messages = await collect(one_prompt("clean"), opts)
    assert seen[0]["tool_name"] == "Bash" and seen[0]["tool_input"] == {"command": "rm -rf build"}
    assert seen[0]["hook_event_name"] == "PreToolUse"
    [block] = tool_results(messages)
    assert block.is_error and "rm is not allowed here" in str(block.content)


@pytest.mark.parametrize("kind", ENGINES)
async def test_a_client_session_is_interrupted_mid_tool_and_goes_on_with_the_next_prompt(
    kind: str, tmp_path: Path
) -> None:
    script = steps(tool_call("Bash", command="sleep 30"), text("second answer"))
    with engine(kind, script, tmp_path) as run:
        async with sdk.ClaudeSDKClient(options(run, tmp_path, allowed_tools=["Bash"])) as client:
            await client.query("start the long command")
            first: list[Any] = []
            async for message in client.receive_response():
                first.append(message)
                if isinstance(message, sdk.AssistantMessage):
                    await client.interrupt()
            await client.query("now answer")
            second = [m async for m in client.receive_response()]
    interrupted = result_of(first)
    assert (interrupted.subtype, interrupted.is_error) == ("error_during_execution", True)
    assert result_of(second).result == "second answer"
    assert result_of(second).session_id == interrupted.session_id


async def test_set_permission_mode_lets_the_next_write_through(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    write = {"file_path": str(target), "content": "hello"}
    script = steps(
        tool_call("Write", **write), text("refused"), tool_call("Write", **write), text("written")
    )
    with engine("scripted", script, tmp_path) as run:
        async with sdk.ClaudeSDKClient(options(run, tmp_path)) as client:
            await client.query("write it")
            before = [m async for m in client.receive_response()]
            await client.set_permission_mode("acceptEdits")
            await client.query("write it again")
            after = [m async for m in client.receive_response()]
    assert tool_results(before)[0].is_error
    assert not tool_results(after)[0].is_error
    assert target.read_text() == "hello"


@pytest.mark.parametrize("kind", ENGINES)
async def test_max_turns_stops_before_the_next_model_response_with_error_max_turns(
    kind: str, tmp_path: Path
) -> None:
    script = steps(tool_call("Bash", command="echo one"), text("never asked for"))
    messages: list[Any] = []
    with engine(kind, script, tmp_path) as run:
        opts = options(run, tmp_path, allowed_tools=["Bash"], max_turns=1)
        with pytest.raises(Exception, match="error result"):  # the SDK's ResultError
            async for message in sdk.query(prompt="go", options=opts):
                messages.append(message)
        if run.server is not None:
            assert run.server.remaining == 1, "the model must not be asked a second time"
    result = result_of(messages)
    assert (result.subtype, result.num_turns) == ("error_max_turns", 2)
    assert result.errors == ["Reached maximum number of turns (1)"]


@pytest.mark.parametrize("kind", ENGINES)
async def test_partial_messages_are_raw_anthropic_stream_events(kind: str, tmp_path: Path) -> None:
    script = steps(
        tool_calls([("Bash", {"command": "echo x"})], text="Let me run it"), text("fine")
    )
    with engine(kind, script, tmp_path) as run:
        opts = options(run, tmp_path, include_partial_messages=True, allowed_tools=["Bash"])
        messages = await collect("go", opts)
    events = [m.event for m in of_type(messages, sdk.StreamEvent)]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds.count("message_stop") == 2
    assert "content_block_start" in kinds and "message_delta" in kinds
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    streamed = "".join(d["text"] for d in deltas if d["type"] == "text_delta")
    assert "Let me run it" in streamed and "fine" in streamed
    tool_json = "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta")
    assert json.loads(tool_json) == {"command": "echo x"}
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert {"type": "tool_use", "name": "Bash"}.items() <= starts[1].items()


@pytest.mark.parametrize("kind", ENGINES)
async def test_structured_output_comes_back_in_the_result(kind: str, tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    script = steps(tool_call("StructuredOutput", answer=42))
    with engine(kind, script, tmp_path) as run:
        opts = options(run, tmp_path, output_format={"type": "json_schema", "schema": schema})
        messages = await collect("what is six times seven", opts)
    result = result_of(messages)
    assert result.subtype == "success" and result.structured_output == {"answer": 42}


@pytest.mark.parametrize("kind", ENGINES)
async def test_resume_continues_the_same_conversation(kind: str, tmp_path: Path) -> None:
    with engine(kind, steps(text("first answer")), tmp_path) as run:
        first = await collect("remember the word pelican", options(run, tmp_path))
    session_id = result_of(first).session_id
    with engine(kind, steps(text("second answer")), tmp_path) as run:
        second = await collect("which word?", options(run, tmp_path, resume=session_id))
        if run.server is not None:  # the resumed history went to the model
            assert "pelican" in json.dumps(run.requests()[-1])
    init = of_type(second, sdk.SystemMessage)[0]
    assert init.data["session_id"] == session_id
    assert result_of(second).session_id == session_id
    assert result_of(second).result == "second answer"


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agent_sdk"


def test_the_python_example_runs_on_the_scripted_model(tmp_path: Path) -> None:
    env = {**os.environ, "LOOPWRIGHT_MODEL": f"scripted:{EXAMPLES / 'script.yaml'}"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "python_sdk.py")],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["There are 4 words.", "[success, 2 turns]"]


async def test_rewind_files_puts_back_what_a_turn_wrote(tmp_path: Path) -> None:
    target = tmp_path / "draft.txt"
    target.write_text("original")
    write = {"file_path": str(target), "content": "changed"}
    script = steps(
        tool_call("Read", file_path=str(target)), tool_call("Write", **write), text("ok")
    )
    with engine("scripted", script, tmp_path) as run:
        opts = options(
            run,
            tmp_path,
            permission_mode="acceptEdits",
            enable_file_checkpointing=True,
            extra_args={"replay-user-messages": None},  # the prompt's uuid comes back
        )
        async with sdk.ClaudeSDKClient(opts) as client:
            await client.query("change the draft")
            messages = [m async for m in client.receive_response()]
            assert target.read_text() == "changed"
            prompt = next(
                m for m in of_type(messages, sdk.UserMessage) if m.content == "change the draft"
            )
            await client.rewind_files(prompt.uuid)
    assert target.read_text() == "original"


async def test_mcp_status_lists_the_sdk_server_and_its_tools(tmp_path: Path) -> None:
    @sdk.tool("ping", "Answer pong", {})
    async def ping(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "pong"}]}

    server = sdk.create_sdk_mcp_server("probe", tools=[ping])
    with engine("scripted", steps(text("ready")), tmp_path) as run:
        async with sdk.ClaudeSDKClient(
            options(run, tmp_path, mcp_servers={"probe": server})
        ) as client:
            await client.query("hi")
            [m async for m in client.receive_response()]
            status = await client.get_mcp_status()
            with pytest.raises(Exception, match="mcp_toggle"):
                await client.toggle_mcp_server("probe", False)
    [entry] = status["mcpServers"]
    assert (entry["name"], entry["status"]) == ("probe", "connected")
    assert entry["tools"] == [{"name": "ping"}]


async def test_agents_from_the_sdk_are_offered_to_the_model(tmp_path: Path) -> None:
    reviewer = sdk.AgentDefinition(
        description="Reviews a diff", prompt="You review diffs.", tools=["Read"], model="inherit"
    )
    with engine("scripted", steps(text("ok")), tmp_path) as run:
        messages = await collect("hi", options(run, tmp_path, agents={"reviewer": reviewer}))
    init = of_type(messages, sdk.SystemMessage)[0]
    assert "reviewer" in init.data["agents"] and "Agent" in init.data["tools"]


def test_the_readme_program_runs_as_printed(tmp_path: Path) -> None:
    readme = (EXAMPLES.parents[1] / "README.md").read_text()
    section = readme[readme.index("## Use the official Claude Agent SDK") :]
    program = section[
        section.index("```python\n") + 10 : section.index("```\n", section.index("```python"))
    ]
    assert 'cli_path=shutil.which("loopwright")' in program
    script = steps(tool_call("Glob", pattern="*.md"), text("The project has a README."))
    with engine("openai", script, tmp_path) as run:
        path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
        done = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            timeout=90,
            env={**os.environ, **run.env, "PATH": path},
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "success 2 The project has a README."
