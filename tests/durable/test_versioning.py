"""The version a session's steps were recorded under: loopwright's and its options'."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

from loopwright import Options, __version__, tool
from loopwright.durable import application_version, session_fingerprint
from loopwright.durable.versioning import version_mismatch


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key


def _options(**changes: object) -> Options:
    base: dict[str, object] = {"model": "test", "tools": [lookup], "max_turns": 5}
    return Options(**{**base, **changes})  # type: ignore[arg-type]


def test_the_application_version_names_this_loopwright() -> None:
    assert application_version() == f"loopwright-{__version__}"


def test_options_built_twice_alike_have_one_fingerprint() -> None:
    assert session_fingerprint(_options()) == session_fingerprint(_options())


def test_the_session_id_does_not_change_the_fingerprint() -> None:
    assert session_fingerprint(_options(session_id="a")) == session_fingerprint(_options())


def test_a_changed_option_changes_the_fingerprint() -> None:
    assert session_fingerprint(_options(max_turns=6)) != session_fingerprint(_options())


def test_another_loopwright_version_is_named_in_the_refusal() -> None:
    current = session_fingerprint(_options())
    recorded = {**current, "loopwright": "0.0.1"}
    message = version_mismatch(recorded, current)
    assert message is not None
    assert f"loopwright 0.0.1 recorded it, this worker runs {__version__}" in message
    assert "replay_other_versions=True" in message


def test_matching_versions_replay_without_a_word() -> None:
    current = session_fingerprint(_options())
    assert version_mismatch(dict(current), current) is None
