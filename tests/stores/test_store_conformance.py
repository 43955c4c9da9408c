"""Every store passes the conformance checks that third-party stores can run too."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from loopwright.stores import JSONLStore, SQLiteStore
from loopwright.stores.base import SessionStore
from loopwright.stores.postgres import PostgresStore
from loopwright.testing.store_conformance import STORE_CHECKS, Check, run_store_conformance

CHECKS = list(STORE_CHECKS.items())
IDS = [name for name, _ in CHECKS]


async def _run(store: SessionStore, check: Check) -> None:
    try:
        await check(store)
    finally:
        await store.aclose()


@pytest.mark.parametrize(("name", "check"), CHECKS, ids=IDS)
async def test_jsonl_store_conforms(tmp_path: Path, name: str, check: Check) -> None:
    await _run(JSONLStore(tmp_path / name, cwd="/tmp/default-project"), check)


@pytest.mark.parametrize(("name", "check"), CHECKS, ids=IDS)
async def test_sqlite_store_conforms(tmp_path: Path, name: str, check: Check) -> None:
    await _run(SQLiteStore(tmp_path / f"{name}.db", cwd="/tmp/default-project"), check)


@pytest.mark.parametrize(("name", "check"), CHECKS, ids=IDS)
async def test_postgres_store_conforms(postgres_conninfo: str, name: str, check: Check) -> None:
    store = PostgresStore(postgres_conninfo, table=f"t_{uuid.uuid4().hex[:12]}")
    try:
        await _run(store, check)
    finally:
        cleanup = PostgresStore(postgres_conninfo, table=store._t)
        await cleanup.drop_table()
        await cleanup.aclose()


async def test_run_store_conformance_runs_every_check_with_fresh_stores(tmp_path: Path) -> None:
    made: list[Path] = []

    def factory() -> SessionStore:
        made.append(tmp_path / f"home-{len(made)}")
        return JSONLStore(made[-1])

    await run_store_conformance(factory)
    assert len(made) == len(STORE_CHECKS)


async def test_run_store_conformance_names_the_failing_check(tmp_path: Path) -> None:
    class ForgetfulStore(JSONLStore):
        async def load(self, session_id: str):  # type: ignore[override]
            return (await super().load(session_id))[:-1]

    with pytest.raises(AssertionError, match="append_then_load_in_order"):
        await run_store_conformance(lambda: ForgetfulStore(tmp_path / "f"))
