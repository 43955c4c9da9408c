"""Suite-wide fixtures: an isolated LOOPWRIGHT_HOME and HOME for every test, and one real
PostgreSQL server for the tests that need it.

The server is started and stopped by ``postgres_server`` (tests/postgres_server.py), which
tests of a database that goes away use for a server of their own.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_server import postgres_server


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


@pytest.fixture(scope="session")
def postgres_port() -> Iterator[int]:
    """A real PostgreSQL server for the whole test session (user ``postgres``, trust auth),
    shared by the session-store and durable-run tests; yields its 127.0.0.1 port."""
    with postgres_server() as server:
        yield server.port
