"""Fixtures: the shared PostgreSQL server (tests/conftest.py) as a DBOS database URL."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def postgres_url(postgres_port: int) -> str:
    """A SQLAlchemy URL on the shared server; DBOS creates its system database in it."""
    return f"postgresql://postgres@127.0.0.1:{postgres_port}/loopwright_dbos"
