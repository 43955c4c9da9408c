"""A store that cannot be written ends the run with an error result, never an exception."""

from __future__ import annotations

from pathlib import Path

from loopwright import Options, run
from loopwright.testing import ScriptedModel, text


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
