"""Failures in the middle of a run (a bad option, a full disk, a model that crashes while
compacting) end it with an error result rather than an exception from the stream."""

from pathlib import Path
from typing import Any

from error_advice import assert_says_what_to_do
from loopwright import Options, query
from loopwright.messages import Message, ResultMessage, SystemMessage, Usage
from loopwright.models.base import ModelRequest
from loopwright.testing import FunctionModel, ScriptedModel, text, tool_call
from support import base_options, blob


async def test_bad_thinking_option_ends_with_an_error_result() -> None:
    model = ScriptedModel([text("hi")])
    messages: list[Message] = []
    async for message in query("go", base_options(model, thinking={"kind": "enabled"})):
        messages.append(message)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error
    assert_says_what_to_do(
        messages[-1].errors[0], "use keys type ('adaptive'|'enabled'|'disabled'), budget_tokens"
    )


async def test_store_failure_ends_with_an_error_result(tmp_path: Path) -> None:
    from loopwright.stores.jsonl import JSONLStore

    class FailingStore(JSONLStore):
        writes = 0

        async def append(self, session_id: str, entry: Any) -> None:
            self.writes += 1
            if self.writes == 3:  # a message recorded mid-run
                raise OSError(28, "No space left on device")
            await super().append(session_id, entry)

    model = ScriptedModel([text("hi")])
    options = Options(
        model=model,
        tools=[],
        permission_mode="bypassPermissions",
        setting_sources=[],
        session_store=FailingStore(tmp_path, cwd=tmp_path),
    )
    messages = [m async for m in query("go", options)]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error
    assert_says_what_to_do(
        messages[-1].errors[0], "fix the session store", f"resume session {messages[-1].session_id}"
    )


async def test_model_crash_during_compaction_ends_with_an_error_result() -> None:
    def answer(request: ModelRequest) -> Any:
        if "working memory" in request.system:  # the summariser
            raise RuntimeError("provider bug")
        return tool_call("blob").with_(usage=Usage(800 * len(request.messages), 5))

    model = FunctionModel(answer)
    options = base_options(model, tools=[blob], context_window=4000, max_turns=30)
    messages: list[Message] = []
    async for message in query("go", options):
        messages.append(message)
    assert isinstance(messages[-1], ResultMessage) and messages[-1].is_error
    notices = [
        str(m.data.get("message"))
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]
    assert any("provider bug" in notice for notice in notices), notices
    assert_says_what_to_do(notices[-1], "run /compact to try again or start a new session")
