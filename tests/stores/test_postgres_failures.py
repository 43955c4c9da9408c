"""The PostgreSQL store survives a dropped connection, and a failed fork's transaction
touches no other session."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest

from loopwright.stores.entries import Entry, meta_entry
from loopwright.stores.postgres import PostgresStore


@pytest.fixture
async def store(postgres_conninfo: str) -> AsyncIterator[PostgresStore]:
    created = PostgresStore(postgres_conninfo, cwd="/p", table=f"t_{uuid.uuid4().hex[:12]}")
    yield created
    await created.drop_table()
    await created.aclose()


def _entry(session_id: str, n: int) -> Entry:
    return Entry("state", session_id, {"n": n})


async def test_a_terminated_connection_is_replaced(
    store: PostgresStore, postgres_conninfo: str
) -> None:
    await store.append("s", meta_entry("s", cwd="/p"))
    async with await psycopg.AsyncConnection.connect(postgres_conninfo, autocommit=True) as admin:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'loopwright' AND pid <> pg_backend_pid()"
        )
    await store.append("s", _entry("s", 1))  # the server dropped the store's connection
    assert [e.kind for e in await store.load("s")] == ["meta", "state"]


async def test_a_failed_fork_leaves_other_sessions_appends_alone(store: PostgresStore) -> None:
    await store.append("other", meta_entry("other", cwd="/p"))
    good = [_entry("fork", n) for n in range(2000)]
    bad = Entry("state", "fork", {}, uuid="nul\x00")  # text columns refuse NUL: INSERT fails

    async def fork() -> None:
        with pytest.raises(psycopg.Error):
            await store.extend("fork", [*good, bad])

    async def others() -> None:
        for n in range(50):
            await store.append("other", _entry("other", n))
            await asyncio.sleep(0)

    await asyncio.gather(fork(), others())
    assert await store.load("fork") == []
    assert len(await store.load("other")) == 51
