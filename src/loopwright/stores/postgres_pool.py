"""Connection pools for the PostgreSQL store: one per database and event loop, shared.

A thousand sessions in one process must not open a thousand connections ("too many
clients"): every :class:`~loopwright.stores.postgres.PostgresStore` on the same
connection string borrows from one bounded ``psycopg_pool.AsyncConnectionPool``. A pool
belongs to the event loop that opened it (asyncio objects cannot cross loops), so a
process running sessions on two loops (a DBOS worker does) gets one pool per loop.

Stores take a lease when they first touch the database and give it back in ``aclose()``;
the pool closes when its last lease is returned, so nothing outlives the sessions that
used it. The size comes from the first store that opens the pool: its ``pool_size``, else
``$LOOPWRIGHT_PG_POOL_SIZE``, else 10.

Schema creation (``CREATE TABLE IF NOT EXISTS`` is not atomic in PostgreSQL: two sessions
creating the table at once on a fresh database fail with ``DuplicateTable`` /
``UniqueViolation``) runs once per pool and table, under a transaction-scoped advisory
lock, so any number of processes may start at once on an empty database.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import os
import weakref
from dataclasses import dataclass, field
from typing import Any

from loopwright.stores.base import SessionError
from loopwright.stores.postgres_locks import WriterLocks

DEFAULT_POOL_SIZE = 10
POOL_SIZE_ENV = "LOOPWRIGHT_PG_POOL_SIZE"
# How long a session waits for a free connection before its operation fails.
DEFAULT_POOL_TIMEOUT_SECONDS = 60.0
APPLICATION_NAME = "loopwright"
# A server that does not answer at all (a dropped SYN) fails the probe after this long.
PROBE_TIMEOUT_SECONDS = 10


@dataclass(slots=True)
class SharedPool:
    """One open pool, the stores holding a lease on it, and the tables it migrated."""

    pool: Any
    max_size: int
    leases: int = 0
    migrated: set[str] = field(default_factory=lambda: set[str]())
    migration_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The sessions this process writes, locked on a connection of their own (opened on the
    # first lock): see postgres_locks.
    writers: WriterLocks | None = None


@dataclass(slots=True)
class _LoopPools:
    pools: dict[str, SharedPool] = field(default_factory=lambda: dict[str, SharedPool]())
    # One opener per database: a thousand sessions starting at once open one pool.
    opening: dict[str, asyncio.Lock] = field(default_factory=lambda: dict[str, asyncio.Lock]())


# A loop that is garbage-collected takes its pools with it.
_LOOPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopPools] = (
    weakref.WeakKeyDictionary()
)


def pool_size_from_env() -> int:
    raw = os.environ.get(POOL_SIZE_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_POOL_SIZE
    try:
        size = int(raw)
    except ValueError:
        size = 0
    if size < 1:
        raise SessionError(
            f"{POOL_SIZE_ENV}={raw!r} is not a pool size: set it to a whole number of "
            "connections, 1 or more (PostgreSQL's max_connections bounds the sum over all "
            "processes)"
        )
    return size


async def lease(conninfo: str, max_size: int | None) -> SharedPool:
    """The loop's pool for ``conninfo`` (opened if needed), with one more lease on it."""
    state = _LOOPS.setdefault(asyncio.get_running_loop(), _LoopPools())
    shared = state.pools.get(conninfo)
    if shared is None:
        async with state.opening.setdefault(conninfo, asyncio.Lock()):
            shared = state.pools.get(conninfo)
            if shared is None:
                size = max_size if max_size is not None else pool_size_from_env()
                # A probe first: a pool would keep retrying a server that is down until
                # its timeout, where one connection attempt says at once what is wrong.
                await _probe(conninfo)
                shared = SharedPool(_new_pool(conninfo, size), size)
                await shared.pool.open(wait=False)
                state.pools[conninfo] = shared
    shared.leases += 1
    return shared


async def release(conninfo: str, shared: SharedPool) -> None:
    """Give a lease back; the last one closes the pool."""
    shared.leases -= 1
    if shared.leases > 0:
        return
    state = _LOOPS.get(asyncio.get_running_loop())
    if state is not None and state.pools.get(conninfo) is shared:
        del state.pools[conninfo]
    if shared.writers is not None:
        await shared.writers.aclose()
    await shared.pool.close()


async def _probe(conninfo: str) -> None:
    psycopg: Any = _import("psycopg")
    try:
        conn = await psycopg.AsyncConnection.connect(
            conninfo, autocommit=True, connect_timeout=PROBE_TIMEOUT_SECONDS
        )
    except psycopg.OperationalError as exc:
        raise SessionError(
            f"cannot connect to PostgreSQL for sessions ({exc}); check the connection "
            "string and that the server is running"
        ) from exc
    await conn.close()


def _import(name: str) -> Any:
    try:
        # Imported by name: psycopg is optional and may be absent where types are checked.
        return importlib.import_module(name)
    except ImportError as exc:  # optional dependency
        raise SessionError(
            "the PostgreSQL session store needs psycopg 3 and psycopg_pool: "
            "pip install 'loopwright[postgres]'"
        ) from exc


def _new_pool(conninfo: str, max_size: int) -> Any:
    pool_module: Any = _import("psycopg_pool")
    return pool_module.AsyncConnectionPool(
        conninfo,
        min_size=1,
        max_size=max_size,
        kwargs={"autocommit": True, "application_name": APPLICATION_NAME},
        timeout=DEFAULT_POOL_TIMEOUT_SECONDS,
        open=False,
        name=f"loopwright-sessions-{max_size}",
    )


def advisory_key(name: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_xact_lock`` (same in every process)."""
    digest = hashlib.sha256(f"loopwright-migration:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def migrate_once(shared: SharedPool, table: str, schema: str) -> None:
    """Create ``table`` (``schema`` SQL) once per pool, serialised across processes."""
    if table in shared.migrated:
        return
    async with shared.migration_lock:
        if table in shared.migrated:
            return
        async with shared.pool.connection() as conn, conn.transaction():
            # Held until the transaction ends: the CREATEs of other processes wait here.
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key(table),))
            await conn.execute(schema)
        shared.migrated.add(table)
