"""PostgreSQL store (psycopg 3, async): one row per entry, ordered by a BIGSERIAL.

Install with ``pip install 'loopwright[postgres]'``. Every store on the same connection
string borrows from one bounded pool per process and event loop (see
:mod:`loopwright.stores.postgres_pool`): size it with ``pool_size=`` or
``$LOOPWRIGHT_PG_POOL_SIZE`` (default 10). Each operation takes a connection for its own
duration, so a fork's transaction never holds another session's appends; each append is
one autocommit INSERT (durable when it returns, so ``sync()`` has nothing to do). The table
is created on first use under an advisory lock, so many processes may start at once on an
empty database. One writer per session: ``lock_session`` takes a session advisory lock (see
:mod:`loopwright.stores.postgres_locks`). A connection that broke (server restart, idle
timeout, terminated backend)
is dropped from the pool and the operation tried once more on another; a retried INSERT
that had in fact committed leaves a duplicate line, which loading tolerates.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from loopwright.stores.base import (
    EntryList,
    InfoList,
    SessionError,
    StoreBase,
    project_key,
    project_of_first_entry,
)
from loopwright.stores.entries import Entry
from loopwright.stores.postgres_locks import PostgresWriterLock, WriterLocks, writer_key
from loopwright.stores.postgres_pool import SharedPool, lease, migrate_once, release
from loopwright.stores.sqlrows import decode, entry_row, infos_from_rows

_SCHEMA = """
CREATE TABLE IF NOT EXISTS {t} (
    seq BIGSERIAL PRIMARY KEY,
    session_id TEXT NOT NULL,
    project TEXT NOT NULL,
    uuid TEXT NOT NULL,
    kind TEXT NOT NULL,
    ts DOUBLE PRECISION NOT NULL,
    prompt TEXT,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {t}_session ON {t} (session_id, seq);
CREATE INDEX IF NOT EXISTS {t}_project ON {t} (project, session_id)
"""
T = TypeVar("T")
# How long an operation waits for a pooled connection before checking that the server is
# there at all (under load, waits of seconds are normal: the pool is bounded).
QUICK_WAIT_SECONDS = 2.0
_INSERT = (
    "INSERT INTO {t} (session_id, project, uuid, kind, ts, prompt, body) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s)"
)


class PostgresStore(StoreBase):
    """Sessions in a PostgreSQL table (created if missing), over a shared pool."""

    def __init__(
        self,
        conninfo: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        table: str = "loopwright_entries",
        pool_size: int | None = None,
    ) -> None:
        if not table.isidentifier():
            raise SessionError(f"table name {table!r} must be a plain identifier")
        if pool_size is not None and pool_size < 1:
            raise SessionError(f"pool_size={pool_size} must be 1 or more connections")
        self.conninfo = conninfo
        self.default_project = project_key(cwd if cwd is not None else os.getcwd())
        self.pool_size = pool_size
        self._t = table
        self._shared: SharedPool | None = None
        self._projects: dict[str, str] = {}

    async def _pool(self) -> SharedPool:
        if self._shared is None:
            self._shared = await lease(self.conninfo, self.pool_size)
        await migrate_once(self._shared, self._t, _SCHEMA.format(t=self._t))
        return self._shared

    async def _run(self, operation: Callable[[Any], Awaitable[T]]) -> T:
        """``operation(connection)`` on a pooled connection, once more on another one if
        the first turned out to be broken (the pool discards a closed connection)."""
        shared = await self._pool()
        try:
            async with self._connection(shared) as db:
                try:
                    return await operation(db)
                except Exception:
                    if not db.closed:
                        raise
            await self._reachable(shared)
            # What broke one connection (a server restart) likely broke its idle siblings.
            await shared.pool.check()
            async with self._connection(shared) as db:
                return await operation(db)
        except (_psycopg().OperationalError, _pool_timeout()) as exc:
            # The server is gone or unreachable: say so in our words (a run reports it in
            # its error result; opening a session raises it before the stream starts).
            raise SessionError(
                f"the PostgreSQL session store is unreachable ({type(exc).__name__}: {exc}); "
                "check that the server is running, then resume the session"
            ) from exc

    @contextlib.asynccontextmanager
    async def _connection(self, shared: SharedPool) -> AsyncGenerator[Any]:
        """A pooled connection. A wait longer than QUICK_WAIT_SECONDS asks the server
        whether it is there at all: a server that is down fails now, not after the
        pool's own timeout (a minute of retrying a refused port)."""
        try:
            conn = await shared.pool.getconn(timeout=QUICK_WAIT_SECONDS)
        except _pool_timeout():
            await self._reachable(shared)
            conn = await shared.pool.getconn()
        try:
            yield conn
        finally:
            await shared.pool.putconn(conn)

    async def _reachable(self, shared: SharedPool) -> None:
        """Raise (psycopg's OperationalError) if the server does not answer. Asked on the
        writer-lock connection, so it opens no connection beyond the pool and that one."""
        if shared.writers is None:
            shared.writers = WriterLocks(self.conninfo)
        await shared.writers.ping()

    async def _project(self, db: Any, session_id: str, first: Entry) -> str:
        known = self._projects.get(session_id)
        if known is None:
            cursor = await db.execute(
                f"SELECT project FROM {self._t} WHERE session_id = %s LIMIT 1", (session_id,)
            )
            row = await cursor.fetchone()
            known = str(row[0]) if row else project_of_first_entry(first, self.default_project)
            self._projects[session_id] = known
        return known

    async def lock_session(self, session_id: str) -> PostgresWriterLock:
        """Become the one writer of ``session_id`` until the returned lock is released.

        Raises :class:`SessionBusyError` at once if another writer holds it (in this
        process or any other on the database); a session advisory lock, dropped by the
        server when its holder's connection ends, so a killed writer never leaves a
        session locked. All of a process's locks share one connection besides the pool.
        """
        shared = await self._pool()
        if shared.writers is None:
            shared.writers = WriterLocks(self.conninfo)
        key = writer_key(self._t, session_id)
        await shared.writers.acquire(session_id, key)
        return PostgresWriterLock(shared.writers, session_id, key)

    async def append(self, session_id: str, entry: Entry) -> None:
        async def insert(db: Any) -> None:
            project = await self._project(db, session_id, entry)
            await db.execute(_INSERT.format(t=self._t), entry_row(session_id, project, entry))

        await self._run(insert)

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        if not entries:
            return

        async def insert_all(db: Any) -> None:
            project = await self._project(db, session_id, entries[0])
            rows = [entry_row(session_id, project, e) for e in entries]
            async with db.transaction(), db.cursor() as cursor:
                await cursor.executemany(_INSERT.format(t=self._t), rows)

        await self._run(insert_all)

    async def load(self, session_id: str) -> EntryList:
        sql = f"SELECT body FROM {self._t} WHERE session_id = %s ORDER BY seq"
        rows = await self._run(lambda db: _rows(db, sql, (session_id,)))
        return [decode(str(row[0])) for row in rows]

    async def list(self, project: str | None = None) -> InfoList:
        t = self._t
        where, args = ("AND project = %s", (project,)) if project else ("", ())

        async def query(db: Any) -> InfoList:
            aggregates = await _rows(
                db,
                f"SELECT session_id, min(project), min(ts), max(ts), count(*) FROM {t} "
                f"WHERE TRUE {where} GROUP BY session_id",
                args,
            )
            metas = await _rows(
                db,
                f"SELECT session_id, body FROM {t} WHERE kind = 'meta' {where} ORDER BY seq",
                args,
            )
            prompts = await _rows(
                db,
                f"SELECT DISTINCT ON (session_id) session_id, prompt FROM {t} "
                f"WHERE prompt IS NOT NULL {where} ORDER BY session_id, seq",
                args,
            )
            return infos_from_rows(aggregates, metas, prompts)

        return await self._run(query)

    async def delete(self, session_id: str) -> bool:
        async def remove(db: Any) -> bool:
            sql = f"DELETE FROM {self._t} WHERE session_id = %s"
            cursor = await db.execute(sql, (session_id,))
            return bool(cursor.rowcount)

        deleted = await self._run(remove)
        self._projects.pop(session_id, None)
        return deleted

    async def sync(self) -> None:
        return None  # every INSERT is committed when append returns

    async def aclose(self) -> None:
        shared, self._shared = self._shared, None
        if shared is not None:
            await release(self.conninfo, shared)

    async def drop_table(self) -> None:
        """Remove the table and everything in it (tests, uninstall)."""
        await self._run(lambda db: db.execute(f"DROP TABLE IF EXISTS {self._t}"))
        if self._shared is not None:
            self._shared.migrated.discard(self._t)  # a later use creates it again


def _psycopg() -> Any:
    return importlib.import_module("psycopg")


def _pool_timeout() -> type[BaseException]:
    """psycopg_pool's PoolTimeout (no connection came within the pool's timeout)."""
    pool_error: type[BaseException] = importlib.import_module("psycopg_pool").PoolTimeout
    return pool_error


async def _rows(db: Any, sql: str, args: tuple[Any, ...]) -> list[Any]:
    cursor = await db.execute(sql, args)
    return list(await cursor.fetchall())
