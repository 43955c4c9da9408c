"""Fixtures: stores over temp dirs, and the shared PostgreSQL server (tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def postgres_conninfo(postgres_port: int) -> str:
    return f"host=127.0.0.1 port={postgres_port} user=postgres dbname=postgres"
