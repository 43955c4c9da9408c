"""Bash: persistent cwd, exit codes, timeouts and cancellation killing the whole tree."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from tools_test_helpers import process_state, wait_for_file, wait_until_dead

from error_advice import assert_says_what_to_do
from loopwright.tools.base import SessionState, ToolContext, ToolResult, ToolServices
from loopwright.tools.bash import BashTool


async def bash(ctx: ToolContext, command: str, **extra: Any) -> ToolResult:
    return await BashTool().call({"command": command} | extra, ctx)


async def test_runs_a_command_and_returns_output(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo hello; echo oops >&2")
    assert not result.is_error
    assert result.content == "hello\noops\n"


async def test_cwd_persists_across_calls(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert not (await bash(ctx, "cd sub")).is_error
    assert ctx.state.cwd == (tmp_path / "sub").resolve()
    result = await bash(ctx, "pwd")
    assert str(result.content).strip() == str((tmp_path / "sub").resolve())


async def test_exit_code_is_kept_and_reported(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    result = await bash(ctx, "cd d && echo partial && exit 3")
    assert result.is_error
    assert "Exit code 3" in str(result.content) and "partial" in str(result.content)
    assert ctx.state.cwd == (tmp_path / "d").resolve()


async def test_environment_does_not_persist(ctx: ToolContext) -> None:
    await bash(ctx, "export LOOPWRIGHT_TEST_VAR=1")
    result = await bash(ctx, 'echo "[${LOOPWRIGHT_TEST_VAR:-unset}]"')
    assert str(result.content).strip() == "[unset]"


async def test_long_output_is_cut_and_saved_to_a_file(ctx: ToolContext) -> None:
    result = await bash(ctx, "seq 1 20000")
    text = str(result.content)
    assert len(text) < 32_000
    saved = text.split("is saved at ", 1)[1].split(" ", 1)[0]
    assert Path(saved).read_text() == "".join(f"{n}\n" for n in range(1, 20001))
    assert text.startswith("1\n2\n") and text.rstrip().endswith("20000")


async def test_timeout_kills_the_child_process_tree(ctx: ToolContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = f"(sleep 60 & echo $! > {pid_file}; wait) ; echo never"
    result = await bash(ctx, command, timeout=500)
    assert result.is_error and "timed out" in str(result.content)
    assert_says_what_to_do(result.content, "Pass a larger timeout", "run_in_background")
    grandchild = int(wait_for_file(pid_file))
    assert wait_until_dead(grandchild)


async def test_cancellation_kills_the_group_and_reraises(ctx: ToolContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    task = asyncio.create_task(bash(ctx, f"sleep 60 & echo $! > {pid_file}; wait"))
    child = int(await asyncio.to_thread(wait_for_file, pid_file))
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the cancellation was swallowed")
    assert wait_until_dead(child)


async def test_command_wrapper_transforms_argv(ctx: ToolContext) -> None:
    seen: list[tuple[list[str], str]] = []

    class Wrapper:
        def wrap(
            self, argv: list[str], env: dict[str, str], cwd: str
        ) -> tuple[list[str], dict[str, str]]:
            seen.append((argv, cwd))
            return (["env", "WRAPPED=yes", *argv], env)

    ctx.services = ToolServices(command_wrapper=Wrapper())
    result = await bash(ctx, "echo $WRAPPED")
    assert str(result.content).strip() == "yes"
    assert seen and seen[0][1] == str(ctx.state.cwd)


async def test_malformed_inputs_are_error_results(ctx: ToolContext) -> None:
    for input, fix in (
        ({}, "command must be a non-empty string"),
        ({"command": ""}, "command must be a non-empty string"),
        ({"command": 5}, "command must be a non-empty string"),
        ({"command": "true", "timeout": -1}, "timeout must be a positive number of milliseconds"),
    ):
        result = await BashTool().call(dict(input), ctx)
        assert result.is_error, input
        assert_says_what_to_do(result.content, fix)


async def test_no_zombie_left_after_a_command(ctx: ToolContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "leader.pid"
    await bash(ctx, f"echo $$ > {pid_file}")
    leader = int(pid_file.read_text())
    assert process_state(leader) is None
    assert os.getpid() != leader


async def test_runaway_output_is_killed(ctx: ToolContext) -> None:
    result = await BashTool(max_output_file_bytes=2_000_000).call({"command": "yes"}, ctx)
    assert result.is_error and "output passed 2000000 bytes" in str(result.content)
    assert_says_what_to_do(result.content, "Redirect it to a file", "filter it (| head, | grep)")


async def test_cd_through_a_symlink_out_of_the_working_dir_is_reset(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "door").symlink_to(outside)
    ctx = ToolContext(state=SessionState(cwd=work), tool_use_id="t1", working_dirs=(work,))
    result = await bash(ctx, "cd door")
    assert "reset" in str(result.content)
    assert ctx.state.cwd == work
