"""PostgreSQL store (psycopg 3, async): one row per entry, ordered by a BIGSERIAL.

Install with ``pip install 'loopwright[postgres]'``. One autocommit connection per store,
opened on first use, and each append is one INSERT (durable when it returns, so ``sync()``
has nothing to do). Every operation holds the store's lock: a fork's transaction must not
take in another session's appends (its rollback would drop them, or fail them). A
connection that broke (server restart, idle timeout, terminated backend) is replaced and
the operation tried once more, so a long-lived process keeps recording; a retried INSERT
that had in fact committed leaves a duplicate line, which loading tolerates.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from loopwright.sessions.base import (
    EntryList,
    InfoList,
    SessionError,
    project_key,
    project_of_first_entry,
)
from loopwright.sessions.entries import Entry
from loopwright.sessions.sqlrows import decode, entry_row, infos_from_rows

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
_INSERT = (
    "INSERT INTO {t} (session_id, project, uuid, kind, ts, prompt, body) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s)"
)


class PostgresStore:
    """Sessions in a PostgreSQL table (created if missing)."""

    def __init__(
        self,
        conninfo: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        table: str = "loopwright_entries",
    ) -> None:
        if not table.isidentifier():
            raise SessionError(f"table name {table!r} must be a plain identifier")
        self.conninfo = conninfo
        self.default_project = project_key(cwd if cwd is not None else os.getcwd())
        self._t = table
        self._conn: Any = None
        self._lock = asyncio.Lock()
        self._projects: dict[str, str] = {}

    async def _db(self) -> Any:
        if self._conn is None or self._conn.closed:
            self._conn = await _connect(self.conninfo)
            await self._conn.execute(_SCHEMA.format(t=self._t))
        return self._conn

    async def _run(self, operation: Callable[[Any], Awaitable[T]]) -> T:
        """``operation(connection)`` under the store's lock, once more on a new connection
        if the first one turned out to be broken."""
        async with self._lock:
            db = await self._db()
            try:
                return await operation(db)
            except Exception:
                if not db.closed:
                    raise
            self._conn = None  # broken: the server or the network dropped it
            return await operation(await self._db())

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
        async with self._lock:
            if self._conn is not None:
                await self._conn.close()
                self._conn = None

    async def drop_table(self) -> None:
        """Remove the table and everything in it (tests, uninstall)."""
        await self._run(lambda db: db.execute(f"DROP TABLE IF EXISTS {self._t}"))


async def _rows(db: Any, sql: str, args: tuple[Any, ...]) -> list[Any]:
    cursor = await db.execute(sql, args)
    return list(await cursor.fetchall())


async def _connect(conninfo: str) -> Any:
    try:
        # Imported by name: psycopg is optional and may be absent where the types are checked.
        psycopg: Any = importlib.import_module("psycopg")
    except ImportError as exc:  # optional dependency
        raise SessionError(
            "the PostgreSQL session store needs psycopg 3: pip install 'loopwright[postgres]'"
        ) from exc
    try:
        return await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    except psycopg.OperationalError as exc:
        raise SessionError(
            f"cannot connect to PostgreSQL for sessions ({exc}); check the connection "
            "string and that the server is running"
        ) from exc
