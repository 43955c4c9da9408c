"""Background shells: start at once, read new output, kill, and nothing left at session end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tools_test_helpers import process_state, wait_for_file, wait_until_dead

from error_advice import assert_says_what_to_do
from loopwright.tools.base import ToolContext, ToolResult
from loopwright.tools.bash import BashTool
from loopwright.tools.bash_background import BackgroundShells, BashOutputTool, KillShellTool


async def call(tool: Any, ctx: ToolContext, **input: Any) -> ToolResult:
    result: ToolResult = await tool.call(input, ctx)
    return result


async def start(ctx: ToolContext, command: str) -> str:
    result = await call(BashTool(), ctx, command=command, run_in_background=True)
    assert not result.is_error, result.content
    return str(result.content).split("background shell ", 1)[1].split(" ", 1)[0]


async def output_until(ctx: ToolContext, shell_id: str, needle: str, timeout: float = 5) -> str:
    """Poll BashOutput (with a deadline) until ``needle`` has appeared in what was read."""
    seen = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while needle not in seen:
        assert loop.time() < deadline, f"{needle!r} never appeared; got {seen!r}"
        seen += str((await call(BashOutputTool(), ctx, bash_id=shell_id)).content)
        await asyncio.sleep(0.02)
    return seen


async def test_start_returns_at_once_and_output_is_incremental(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "echo first; sleep 30")
    seen = await output_until(ctx, shell_id, "first")
    assert "running" in seen
    again = str((await call(BashOutputTool(), ctx, bash_id=shell_id)).content)
    assert "first" not in again and "(no new output)" in again
    killed = await call(KillShellTool(), ctx, shell_id=shell_id)
    assert not killed.is_error and "killed" in str(killed.content)


async def test_completed_shell_reports_exit_code(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "echo done; exit 4")
    seen = await output_until(ctx, shell_id, "exit code 4")
    assert "done" in seen and "failed" in seen


async def test_filter_keeps_matching_lines(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "printf 'ok 1\\nerror 2\\nok 3\\n'")
    text = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    shells = ctx.state.resources["background_shells"]
    assert isinstance(shells, BackgroundShells)
    shell = shells.get(shell_id)
    assert shell is not None
    await asyncio.wait_for(shell.waiter, timeout=5)
    while "ok 3" not in text and loop.time() < deadline:
        text += str((await call(BashOutputTool(), ctx, bash_id=shell_id, filter="^ok")).content)
    assert "ok 1" in text and "ok 3" in text and "error" not in text


async def test_kill_shell_kills_the_process_tree(ctx: ToolContext, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    shell_id = await start(ctx, f"sleep 60 & echo $! > {pid_file}; wait")
    child = int(await asyncio.to_thread(wait_for_file, pid_file))
    await call(KillShellTool(), ctx, shell_id=shell_id)
    assert wait_until_dead(child)


async def test_aclose_leaves_no_process_or_zombie(ctx: ToolContext, tmp_path: Path) -> None:
    pids: list[tuple[int, int]] = []
    for index in range(3):
        pid_file = tmp_path / f"pids{index}"
        await start(ctx, f"sleep 60 & echo $$ $! > {pid_file}; wait")
        leader, child = (await asyncio.to_thread(wait_for_file, pid_file)).split()
        pids.append((int(leader), int(child)))
    shells = ctx.state.resources["background_shells"]
    await shells.aclose()
    for leader, child in pids:
        assert process_state(leader) is None  # reaped by us, not a zombie
        assert wait_until_dead(child)


async def test_unknown_ids_and_bad_filters_are_errors(ctx: ToolContext) -> None:
    unknown = await call(BashOutputTool(), ctx, bash_id="bash_99")
    assert unknown.is_error
    assert_says_what_to_do(unknown.content, "running shells: none")
    not_killed = await call(KillShellTool(), ctx, shell_id="bash_99")
    assert not_killed.is_error
    assert_says_what_to_do(not_killed.content, "running shells: none")
    shell_id = await start(ctx, "true")
    bad_filter = await call(BashOutputTool(), ctx, bash_id=shell_id, filter="(")
    assert bad_filter.is_error
    assert_says_what_to_do(bad_filter.content, "escape ( [ { . * + ? with a backslash")


async def test_a_catastrophic_filter_does_not_stall_the_event_loop(ctx: ToolContext) -> None:
    shell_id = await start(ctx, "printf '%s!\\n' aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; echo ok")
    shells = ctx.state.resources["background_shells"]
    assert isinstance(shells, BackgroundShells)
    shell = shells.get(shell_id)
    assert shell is not None
    await asyncio.wait_for(shell.waiter, timeout=5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await call(BashOutputTool(), ctx, bash_id=shell_id, filter="^(a+)+$|ok")
    assert loop.time() - started < 5
    assert "ok" in str(result.content) and "aaaa" not in str(result.content)
