"""Checks before work: the permission decision before the file checkpoint, sizes before
reading, links refused before writing, and bad paths an error result — checkpointing on
or off — never the end of the run. Driven through the real loop with the scripted model
where the order matters."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright import Client, Options, query
from loopwright.messages import Message, ResultMessage, ToolResultBlock, UserMessage
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import SessionState, ToolContext
from loopwright.tools.edit import EditTool
from loopwright.tools.file_access import MAX_EDIT_FILE_BYTES
from loopwright.tools.read import MAX_READ_FILE_BYTES, ReadTool
from loopwright.tools.write import WriteTool

SPARSE_SIZE = 3 * 1024**3


def results(messages: list[Message]) -> list[ToolResultBlock]:
    return [
        block
        for message in messages
        if isinstance(message, UserMessage)
        for block in message.blocks
        if isinstance(block, ToolResultBlock)
    ]


def options(model: ScriptedModel, cwd: Path, **extra: Any) -> Options:
    extra.setdefault("permission_mode", "bypassPermissions")
    return Options(
        model=model,
        cwd=cwd,
        tools=["Read", "Write", "Edit", "Glob", "Grep"],
        setting_sources=[],
        persist_session=False,
        **extra,
    )


async def test_a_denied_write_is_not_checkpointed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me")
    model = ScriptedModel([tool_call("Write", file_path=str(secret), content="x"), text("done")])
    opts = options(
        model,
        tmp_path,
        permission_mode="default",
        disallowed_tools=["Write(./secret.txt)"],
        enable_file_checkpointing=True,
    )
    async with Client(opts) as client:
        await client.query("overwrite it")
        messages = [m async for m in client.receive_response()]
        [prompt] = [
            m for m in messages if isinstance(m, UserMessage) and m.content == "overwrite it"
        ]
        [denied] = results(messages)
        restored = await client.rewind_files(prompt.uuid)
    assert denied.is_error and secret.read_text() == "keep me"
    # Nothing was read for a checkpoint: there is nothing to restore.
    assert restored == []


async def test_an_allowed_write_is_checkpointed_with_the_input_it_ran_with(
    tmp_path: Path,
) -> None:
    target = tmp_path / "notes.txt"
    model = ScriptedModel([tool_call("Write", file_path=str(target), content="v1"), text("ok")])
    async with Client(options(model, tmp_path, enable_file_checkpointing=True)) as client:
        await client.query("write")
        uuids = [
            m.uuid
            async for m in client.receive_response()
            if isinstance(m, UserMessage) and m.content == "write"
        ]
        assert target.read_text() == "v1"
        restored = await client.rewind_files(uuids[0])
    assert restored == [target.resolve()] and not target.exists()


def bad_paths(tmp_path: Path) -> dict[str, str]:
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    return {
        "symlink loop": str(loop / "f.txt"),
        "self loop": str(loop),
        "name too long": str(tmp_path / ("n" * 5000)),
        "component too long": str(tmp_path / ("n" * 300) / "f.txt"),
    }


@pytest.mark.parametrize("checkpointing", [True, False])
@pytest.mark.parametrize(
    "kind", ["symlink loop", "self loop", "name too long", "component too long"]
)
@pytest.mark.parametrize("name", ["Write", "Edit", "Read", "Glob", "Grep"])
async def test_a_bad_path_is_an_error_result_with_checkpointing_on_or_off(
    tmp_path: Path, checkpointing: bool, kind: str, name: str
) -> None:
    path = bad_paths(tmp_path)[kind]
    inputs: dict[str, dict[str, Any]] = {
        "Write": {"file_path": path, "content": "x"},
        "Edit": {"file_path": path, "old_string": "", "new_string": "x"},
        "Read": {"file_path": path},
        "Glob": {"pattern": "*", "path": path},
        "Grep": {"pattern": "x", "path": path},
    }
    model = ScriptedModel([tool_call(name, **inputs[name]), text("done")])
    messages = [
        m
        async for m in query(
            "go", options(model, tmp_path, enable_file_checkpointing=checkpointing)
        )
    ]
    [result] = results(messages)
    final = messages[-1]
    assert result.is_error, result.text
    assert isinstance(final, ResultMessage) and final.subtype == "success"
    assert final.result == "done"


def context(tmp_path: Path) -> ToolContext:
    return ToolContext(state=SessionState(cwd=tmp_path), tool_use_id="t1")


def sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


async def test_edit_refuses_a_huge_sparse_file_by_size_before_loading_it(tmp_path: Path) -> None:
    big = sparse(tmp_path / "big.txt", SPARSE_SIZE)
    ctx = context(tmp_path)
    ctx.state.record_read(big)  # as if read: the size check must still come first
    started = time.monotonic()
    result = await EditTool().call(
        {"file_path": str(big), "old_string": "a", "new_string": "b"}, ctx
    )
    assert result.is_error and f"over Edit's limit of {MAX_EDIT_FILE_BYTES}" in str(result.content)
    assert time.monotonic() - started < 5
    assert_says_what_to_do(result.content, "sed -i")


@pytest.mark.parametrize("extra", [{}, {"offset": 10, "limit": 5}])
async def test_read_refuses_a_huge_sparse_file_by_size(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    big = sparse(tmp_path / "big.log", MAX_READ_FILE_BYTES + 1)
    result = await ReadTool().call({"file_path": str(big), **extra}, context(tmp_path))
    assert result.is_error and "over Read's limit" in str(result.content)
    assert "Grep" in str(result.content)


def linked(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """A link in the project and what it points at (outside it, like ~/.bashrc)."""
    outside = tmp_path / "home"
    outside.mkdir()
    target = outside / ".bashrc"
    if kind != "dangling":
        target.write_text("original\n")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    link = project / "notes.txt"
    if kind == "relative":
        os.symlink(os.path.relpath(target, project), link)
    else:
        os.symlink(target, link)
    return link, target


@pytest.mark.parametrize("kind", ["absolute", "relative", "dangling"])
async def test_write_refuses_a_symlink_and_names_its_target(tmp_path: Path, kind: str) -> None:
    link, target = linked(tmp_path, kind)
    ctx = context(tmp_path / "project")
    if kind != "dangling":
        await ReadTool().call({"file_path": str(link)}, ctx)
        ctx.state.record_read(link)
    result = await WriteTool().call({"file_path": str(link), "content": "pwned\n"}, ctx)
    assert result.is_error and "is a symbolic link" in str(result.content)
    assert os.path.realpath(link) in str(result.content)
    if kind == "dangling":
        assert not target.exists()
    else:
        assert target.read_text() == "original\n"
    assert link.is_symlink()


@pytest.mark.parametrize("kind", ["absolute", "relative", "dangling"])
async def test_edit_refuses_a_symlink_and_names_its_target(tmp_path: Path, kind: str) -> None:
    link, target = linked(tmp_path, kind)
    ctx = context(tmp_path / "project")
    if kind != "dangling":
        ctx.state.record_read(link)
    old = "" if kind == "dangling" else "original"
    result = await EditTool().call(
        {"file_path": str(link), "old_string": old, "new_string": "pwned"}, ctx
    )
    assert result.is_error and "is a symbolic link" in str(result.content)
    if kind == "dangling":
        assert not target.exists()
    else:
        assert target.read_text() == "original\n"


async def test_a_write_through_a_link_is_refused_and_the_real_path_then_written(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real.txt"
    real.write_text("original\n")
    link = tmp_path / "alias.txt"
    os.symlink(real, link)
    model = ScriptedModel(
        [
            tool_call("Read", file_path=str(link)),
            tool_call("Write", file_path=str(link), content="via link\n"),
            tool_call("Write", file_path=str(real), content="direct\n"),
            text("done"),
        ]
    )
    messages = [m async for m in query("go", options(model, tmp_path))]
    _, via_link, direct = results(messages)
    assert via_link.is_error and str(real) in via_link.text
    assert not direct.is_error and real.read_text() == "direct\n" and link.is_symlink()


async def test_edit_of_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    ctx = context(tmp_path)
    ctx.state.record_read(fifo)
    result = await EditTool().call(
        {"file_path": str(fifo), "old_string": "a", "new_string": "b"}, ctx
    )
    assert result.is_error and "not a regular file" in str(result.content)


async def test_write_over_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    ctx = context(tmp_path)
    ctx.state.record_read(fifo)
    result = await WriteTool().call({"file_path": str(fifo), "content": "x"}, ctx)
    assert result.is_error and "not a regular file" in str(result.content)


async def test_rewind_restores_the_file_and_not_a_link_planted_over_it(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("v1")
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("untouched")
    model = ScriptedModel(
        [
            tool_call("Read", file_path=str(notes)),
            tool_call("Write", file_path=str(notes), content="v2"),
            text("done"),
        ]
    )
    async with Client(options(model, tmp_path, enable_file_checkpointing=True)) as client:
        await client.query("edit")
        uuids = [
            m.uuid
            async for m in client.receive_response()
            if isinstance(m, UserMessage) and m.content == "edit"
        ]
        notes.unlink()
        os.symlink(outside, notes)
        await client.rewind_files(uuids[0])
    assert not notes.is_symlink() and notes.read_text() == "v1"
    assert outside.read_text() == "untouched"
