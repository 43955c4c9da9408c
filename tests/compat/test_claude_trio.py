"""The Claude layer under trio (as the reference SDK, on anyio, allows), and rewind_files."""

from pathlib import Path

import trio

from loopwright.compat.claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    query,
)
from loopwright.testing import ScriptedModel, text


def _options(model: ScriptedModel) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(model=model, setting_sources=[])  # type: ignore[arg-type]


def test_query_runs_under_trio() -> None:
    model = ScriptedModel([text("from trio")])

    async def main() -> list[object]:
        return [m async for m in query(prompt="hi", options=_options(model))]

    messages = trio.run(main)

    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "from trio"


def test_a_client_keeps_its_conversation_under_trio() -> None:
    model = ScriptedModel([text("42"), text("84")])

    async def main() -> list[str | None]:
        answers: list[str | None] = []
        async with ClaudeSDKClient(options=_options(model)) as client:
            for prompt in ("15 + 27?", "times 2?"):
                await client.query(prompt)
                async for message in client.receive_response():
                    if isinstance(message, ResultMessage):
                        answers.append(message.result)
        return answers

    assert trio.run(main) == ["42", "84"]
    assert len(model.requests[1].messages) == 3


def test_result_usage_is_the_sdks_dict() -> None:
    model = ScriptedModel([text("ok")])

    async def main() -> ResultMessage:
        messages = [m async for m in query(prompt="hi", options=_options(model))]
        result = messages[-1]
        assert isinstance(result, ResultMessage)
        return result

    usage = trio.run(main).usage
    assert usage == {  # type: ignore[comparison-overlap]
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }


def test_rewind_files_restores_what_the_tools_changed(tmp_path: Path) -> None:
    from loopwright.compat.claude_agent_sdk import UserMessage
    from loopwright.testing import tool_call

    notes = tmp_path / "notes.txt"
    notes.write_text("before")
    model = ScriptedModel(
        [
            tool_call("Read", file_path=str(notes)),
            tool_call("Write", file_path=str(notes), content="after"),
            text("written"),
        ]
    )
    options = ClaudeAgentOptions(
        model=model,  # type: ignore[arg-type]
        cwd=str(tmp_path),
        setting_sources=[],
        permission_mode="bypassPermissions",
        enable_file_checkpointing=True,
    )

    async def main() -> None:
        async with ClaudeSDKClient(options=options) as client:
            await client.query("rewrite the notes")
            prompt_id = ""
            async for message in client.receive_response():
                if isinstance(message, UserMessage) and message.content == "rewrite the notes":
                    prompt_id = message.uuid
            assert notes.read_text() == "after"
            await client.rewind_files(prompt_id)

    trio.run(main)
    assert notes.read_text() == "before"
