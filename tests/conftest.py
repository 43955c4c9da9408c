"""Suite-wide fixtures."""

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_loopwright_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Transcripts of test sessions go to a temporary home, never to ~/.loopwright."""
    home = tmp_path_factory.mktemp("loopwright-home")
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(home))
    # User settings (~/.claude, ~/.loopwright) of whoever runs the suite must not leak in.
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("user-home")))
    yield home
