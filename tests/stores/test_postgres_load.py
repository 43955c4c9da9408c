"""The PostgreSQL store under load: a shared, bounded pool, migrations safe under
concurrency, and database failures that end a session with an error result."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest

from loopwright import Options, run
from loopwright.stores.base import SessionError
from loopwright.stores.entries import meta_entry
from loopwright.stores.postgres import PostgresStore
from loopwright.stores.postgres_pool import pool_size_from_env
from loopwright.stores.repair import check_pairing
from loopwright.stores.transcript import restore
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import tool

POOL_SIZE = 20


@tool(read_only=True)
def echo(word: str) -> str:
    """Say the word back."""
    return word


@pytest.fixture
async def limited_database(postgres_port: int) -> AsyncIterator[str]:
    """A database reached as a role PostgreSQL lets open at most POOL_SIZE + 1 connections
    (one more for the probe that precedes the pool): a store that needed more would fail."""
    name = f"lw_pool_{uuid.uuid4().hex[:8]}"
    admin_info = f"host=127.0.0.1 port={postgres_port} user=postgres dbname=postgres"
    async with await psycopg.AsyncConnection.connect(admin_info, autocommit=True) as admin:
        await admin.execute(f"CREATE ROLE {name} LOGIN CONNECTION LIMIT {POOL_SIZE + 1}")
        await admin.execute(f"CREATE DATABASE {name} OWNER {name}")
    yield f"postgresql://{name}@127.0.0.1:{postgres_port}/{name}"
    async with await psycopg.AsyncConnection.connect(admin_info, autocommit=True) as admin:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"DROP ROLE IF EXISTS {name}")


def _session_options(store_url: str, session_id: str) -> Options:
    model = ScriptedModel([tool_call("echo", word=session_id), text(f"done {session_id}")])
    return Options(
        model=model,
        tools=[echo],
        setting_sources=[],
        session_store=store_url,
        session_id=session_id,
    )


async def test_a_thousand_concurrent_sessions_share_a_pool_of_twenty(
    limited_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPWRIGHT_PG_POOL_SIZE", str(POOL_SIZE))
    ids = [f"s{n:04d}" for n in range(1000)]
    results = await asyncio.gather(*(run("go", _session_options(limited_database, i)) for i in ids))
    failures = [r.errors for r in results if r.subtype != "success"]
    assert failures == []
    store = PostgresStore(limited_database)
    try:
        listed = {info.session_id for info in await store.list()}
        assert listed == set(ids)
        restored = restore(await store.load("s0999"), session_id="s0999")
        assert [type(m).__name__ for m in restored.messages] == [
            "UserMessage",
            "AssistantMessage",
            "UserMessage",
            "AssistantMessage",
        ]
        assert check_pairing(restored.messages) == []
    finally:
        await store.aclose()


async def test_stores_in_many_pools_create_the_table_once_without_a_race(
    postgres_conninfo: str,
) -> None:
    table = f"t_{uuid.uuid4().hex[:12]}"
    # A distinct application_name gives each store its own pool, as separate processes
    # would have: every one of them tries to create the table at the same moment.
    stores = [
        PostgresStore(f"{postgres_conninfo} application_name=racer{n}", table=table)
        for n in range(8)
    ]
    try:
        await asyncio.gather(
            *(s.append(f"s{n}", meta_entry(f"s{n}", cwd=f"/p{n}")) for n, s in enumerate(stores))
        )
        assert len(await stores[0].list()) == 8
    finally:
        await stores[0].drop_table()
        await asyncio.gather(*(s.aclose() for s in stores))


async def test_a_database_that_is_down_ends_the_session_with_an_error_result() -> None:
    options = Options(
        model=ScriptedModel([text("never asked")]),
        setting_sources=[],
        session_store="postgresql://postgres@127.0.0.1:1/nowhere",
    )
    result = await run("go", options)
    assert result.subtype == "error_during_execution"
    assert "cannot connect to PostgreSQL" in result.errors[0]
    assert "check the connection string" in result.errors[0]


def test_a_bad_pool_size_setting_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPWRIGHT_PG_POOL_SIZE", "lots")
    with pytest.raises(SessionError, match="set it to a whole number of connections"):
        pool_size_from_env()
