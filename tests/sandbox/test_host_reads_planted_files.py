"""The host reads back what a sandboxed command could replace as untrusted input.

Each command here replaces the file the host later reads its output (or its final cwd)
from: with a symlink to a secret the sandbox masks, or with a FIFO. The host must report
the command's own output, never the secret, and never wait on the FIFO.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopwright.sandbox import BwrapSandbox, SandboxSettings
from loopwright.tools.base import SessionState, ToolContext, ToolServices
from loopwright.tools.bash import BashTool
from loopwright.tools.bash_background import BashOutputTool, background_shells

from .host import requires_sandbox

pytestmark = requires_sandbox

SECRET = "BEGIN-PRIVATE-KEY-do-not-leak"
# The shell's stdout is its output file ($$: inside $(…) fd 1 is a pipe).
OUTPUT_FILE = "out=$(readlink /proc/$$/fd/1); out=${out% (deleted)}"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    return home


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    # Loopwright's home inside the working dir (cwd = $HOME is common in containers):
    # then even background-shell logs are writable from the sandbox.
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(work / "lwhome"))
    return work


@pytest.fixture
def ctx(workdir: Path, home: Path, tmp_path: Path) -> Iterator[ToolContext]:
    box = BwrapSandbox(
        SandboxSettings(), [workdir], home=home, quarantine_dir=tmp_path / "quarantine"
    )
    state = SessionState(cwd=workdir)
    yield ToolContext(
        state=state,
        tool_use_id="t1",
        session_id="planted",
        working_dirs=(workdir,),
        services=ToolServices(command_wrapper=box),
    )
    box.close()


async def bash(ctx: ToolContext, command: str) -> str:
    result = await asyncio.wait_for(BashTool().call({"command": command}, ctx), 30)
    return str(result.content)


def secret_path(home: Path) -> Path:
    return home / ".ssh" / "id_rsa"


async def test_an_output_file_swapped_for_a_symlink_to_a_masked_secret_is_not_followed(
    ctx: ToolContext, home: Path
) -> None:
    out = await bash(
        ctx, f'{OUTPUT_FILE}; echo mine; rm -f "$out"; ln -s {secret_path(home)} "$out"'
    )
    assert "mine" in out and SECRET not in out


async def test_an_output_file_swapped_for_a_fifo_does_not_block_the_host(
    ctx: ToolContext,
) -> None:
    out = await bash(ctx, f'{OUTPUT_FILE}; echo before-swap; rm -f "$out"; mkfifo "$out"')
    assert "before-swap" in out


async def test_a_long_output_kept_on_disk_is_the_commands_not_the_planted_link(
    ctx: ToolContext, home: Path
) -> None:
    command = (
        f'{OUTPUT_FILE}; head -c 50000 /dev/zero | tr "\\0" y; '
        f'rm -f "$out"; ln -s {secret_path(home)} "$out"'
    )
    out = await bash(ctx, command)
    saved = Path(out.split("saved at ")[1].split(" — ")[0])
    assert stat.S_ISREG(saved.lstat().st_mode)
    assert saved.read_text().startswith("yyyy") and SECRET not in saved.read_text()


async def test_a_cwd_file_replaced_by_a_fifo_keeps_the_cwd_and_returns(
    ctx: ToolContext, workdir: Path
) -> None:
    (workdir / "sub").mkdir()
    # The EXIT trap is dropped so nothing writes to the FIFO; the host alone would open it.
    command = f'{OUTPUT_FILE}; trap - EXIT; cd sub; mkfifo "${{out%.log}}.cwd"; echo ran'
    out = await bash(ctx, command)
    assert "ran" in out and ctx.state.cwd == workdir


async def test_a_cwd_file_replaced_by_a_symlink_is_not_followed(
    ctx: ToolContext, workdir: Path, tmp_path: Path
) -> None:
    elsewhere = workdir / "elsewhere"
    elsewhere.mkdir()
    (workdir / "points-at").write_text(str(elsewhere))
    command = (
        f'{OUTPUT_FILE}; trap - EXIT; ln -s {workdir / "points-at"} "${{out%.log}}.cwd"; echo ran'
    )
    out = await bash(ctx, command)
    assert "ran" in out and ctx.state.cwd == workdir


async def background_output(ctx: ToolContext, command: str) -> str:
    start = await BashTool().call({"command": command, "run_in_background": True}, ctx)
    shell_id = str(start.content).split("background shell ")[1].split(" ")[0]
    shell = background_shells(ctx.state).get(shell_id)
    assert shell is not None
    await asyncio.wait_for(shell.waiter, 30)
    result = await asyncio.wait_for(BashOutputTool().call({"bash_id": shell_id}, ctx), 30)
    await background_shells(ctx.state).aclose()
    return str(result.content)


async def test_a_background_log_swapped_for_a_symlink_to_a_secret_is_not_followed(
    ctx: ToolContext, home: Path
) -> None:
    out = await background_output(
        ctx, f'{OUTPUT_FILE}; echo bg-mine; rm -f "$out"; ln -s {secret_path(home)} "$out"'
    )
    assert "bg-mine" in out and SECRET not in out


async def test_a_background_log_swapped_for_a_fifo_does_not_block_bash_output(
    ctx: ToolContext,
) -> None:
    out = await background_output(ctx, f'{OUTPUT_FILE}; echo bg-fifo; rm -f "$out"; mkfifo "$out"')
    assert "bg-fifo" in out and "completed" in out


async def test_a_planted_fifo_in_a_protected_name_is_quarantined_without_blocking(
    ctx: ToolContext, workdir: Path
) -> None:
    out = await bash(ctx, "mkfifo .envrc; echo made")
    assert "made" in out and not os.path.lexists(workdir / ".envrc")
    assert "moved out of the project" in out


async def test_a_session_output_dir_swapped_for_a_link_is_not_written_through(
    ctx: ToolContext, workdir: Path, tmp_path: Path
) -> None:
    from loopwright.tools.spill import session_output_dir, spill_text

    exposed = tmp_path / "world-readable"
    exposed.mkdir()
    real = session_output_dir("swapped")
    real.rmdir()
    os.symlink(exposed, real)
    with pytest.raises(OSError, match="not a directory of this user"):
        spill_text("swapped", "tool output")
    assert list(exposed.iterdir()) == []


def _cross_device_quarantine(tmp_path: Path) -> Path:
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on another filesystem than the test's temp dir")
    target = shm / f"loopwright-quarantine-test-{os.getpid()}-{tmp_path.name}"
    return target


def test_a_planted_fifo_is_not_copied_across_filesystems(workdir: Path, tmp_path: Path) -> None:
    from loopwright.sandbox.quarantine import ProtectedPathsWatch

    quarantine = _cross_device_quarantine(tmp_path)
    try:
        watch = ProtectedPathsWatch([workdir], quarantine)
        os.mkfifo(workdir / ".envrc")
        (workdir / ".mcp.json").write_text("{}")
        note = watch.settle()
    finally:
        shutil.rmtree(quarantine, ignore_errors=True)
    assert ".envrc could NOT be moved" in note and "not a file, directory or symlink" in note
    assert not (workdir / ".mcp.json").exists() and "→" in note


def test_a_huge_sparse_file_is_not_copied_across_filesystems(workdir: Path, tmp_path: Path) -> None:
    from loopwright.sandbox.quarantine import ProtectedPathsWatch

    quarantine = _cross_device_quarantine(tmp_path)
    try:
        watch = ProtectedPathsWatch([workdir], quarantine)
        with (workdir / ".envrc").open("wb") as handle:
            handle.truncate(8 * 1024**3)
        note = watch.settle()
    finally:
        shutil.rmtree(quarantine, ignore_errors=True)
    assert ".envrc could NOT be moved" in note and "too large" in note
