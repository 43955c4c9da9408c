"""File checkpoints: files changed by tools are snapshotted per prompt and can be rewound."""

from pathlib import Path

import pytest

from loopwright import Client, Options
from loopwright.errors import LoopwrightError
from loopwright.messages import UserMessage
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options


def options(model: ScriptedModel, cwd: Path) -> Options:
    return base_options(
        model, cwd=cwd, tools=["Read", "Write", "Edit"], enable_file_checkpointing=True
    )


async def prompt_uuids(client: Client, *prompts: str) -> list[str]:
    uuids: list[str] = []
    for prompt in prompts:
        await client.query(prompt)
        async for message in client.receive_response():
            if isinstance(message, UserMessage) and message.content == prompt:
                uuids.append(message.uuid)
    return uuids


async def test_rewinding_to_a_prompt_restores_files_as_they_were_before_it(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("v1")
    created = tmp_path / "new.txt"
    model = ScriptedModel(
        [
            tool_call("Read", file_path=str(notes)),
            tool_call("Write", file_path=str(notes), content="v2"),
            text("done"),
            tool_call("Write", file_path=str(notes), content="v3"),
            tool_call("Write", file_path=str(created), content="fresh"),
            text("done again"),
        ]
    )
    async with Client(options(model, tmp_path)) as client:
        first, second = await prompt_uuids(client, "make v2", "make v3")
        assert notes.read_text() == "v3" and created.exists()

        restored = await client.rewind_files(second)

        assert notes.read_text() == "v2" and not created.exists()
        assert restored == sorted([notes.resolve(), created.resolve()])
        await client.rewind_files(first)
        assert notes.read_text() == "v1"


async def test_rewinding_to_an_unknown_message_says_what_to_pass(tmp_path: Path) -> None:
    async with Client(options(ScriptedModel([text("hi")]), tmp_path)) as client:
        await prompt_uuids(client, "hi")
        with pytest.raises(LoopwrightError, match="uuid of a UserMessage prompt"):
            await client.rewind_files("not-a-uuid")


async def test_without_checkpointing_rewind_says_how_to_turn_it_on(tmp_path: Path) -> None:
    opts = options(ScriptedModel([text("hi")]), tmp_path)
    opts.enable_file_checkpointing = False
    async with Client(opts) as client:
        with pytest.raises(LoopwrightError, match="enable_file_checkpointing=True"):
            await client.rewind_files("x")
