"""A store that cannot be written ends the run with an error result, never an exception."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loop.test_declared_interfaces import BareStore
from loopwright import Options, query, run
from loopwright.messages import ResultMessage
from loopwright.stores.entries import Entry
from loopwright.testing import ScriptedModel, text, tool_call
from support import look


async def test_an_sqlite_store_that_cannot_be_opened_ends_the_run_with_an_error_result(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the database's directory should be")
    options = Options(
        model=ScriptedModel([text("never asked")]),
        setting_sources=[],
        session_store=f"sqlite:{blocker / 'sessions.db'}",
    )
    result = await run("go", options)
    assert result.subtype == "error_during_execution"
    assert "the session transcript could not be written" in result.errors[0]
    assert "not-a-directory" in result.errors[0]


class FailingStore(BareStore):
    """A store whose disk fills up after ``writes`` successful writes."""

    def __init__(self, writes: int) -> None:
        super().__init__()
        self.writes_left = writes

    async def append(self, session_id: str, entry: Entry) -> None:
        await self.extend(session_id, [entry])

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        if self.writes_left <= 0:
            raise OSError(28, "No space left on device")
        self.writes_left -= 1
        await super().extend(session_id, entries)


@pytest.mark.parametrize("writes", range(12))
async def test_a_store_that_fills_up_at_any_write_ends_the_run_with_one_error_result(
    tmp_path: Path, writes: int
) -> None:
    model = ScriptedModel([tool_call("look", path="a"), tool_call("look", path="b"), text("ok")])
    options = Options(
        model=model,
        setting_sources=[],
        cwd=tmp_path,
        tools=[look],
        permission_mode="bypassPermissions",
        session_store=FailingStore(writes),
    )
    messages = [m async for m in query("go", options)]
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert len(results) == 1 and messages[-1] is results[0]
    result = results[0]
    if result.subtype == "success":  # every write fitted
        return
    assert result.subtype == "error_during_execution"
    assert "the session transcript could not be written" in result.errors[0]
    assert_says_what_to_do(
        result.errors[0], "Free disk space", f"resume session {result.session_id}"
    )
