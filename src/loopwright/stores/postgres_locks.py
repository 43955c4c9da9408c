"""One writer per session on PostgreSQL: session-level advisory locks, all of a process's
held on one connection of its own.

Why advisory locks rather than a lease row with a heartbeat: PostgreSQL drops a backend's
advisory locks the moment its connection ends, so a writer killed with kill -9 frees its
sessions at once (a machine that vanishes, once TCP keepalives notice). A fleet worker
taking over a dead worker's session is then not refused for the rest of a lease.

Why one connection per process rather than one per session: a thousand sessions on a pool
of 20 connections must not need a thousand more. Advisory locks are re-entrant for the
backend that holds them, so the process itself keeps which sessions it writes and refuses a
second writer of its own; between processes, ``pg_try_advisory_lock`` refuses, and the
holder's connection name (``loopwright-writer pid=… host=…``) says who holds it.

If the lock connection breaks while the process lives (a server restart), the server has
dropped its locks: the next lock operation reconnects and takes the held ones again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import os
import re
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from loopwright.stores.base import SessionBusyError, SessionError

T = TypeVar("T")
APPLICATION_PREFIX = "loopwright-writer"
PING_MEMORY_SECONDS = 1.0
# A server that does not answer at all (a dropped SYN) fails a lock after this long.
CONNECT_TIMEOUT_SECONDS = 10
_HOLDER = re.compile(r"pid=(\d+) host=(\S*)")
# A dead peer (a machine gone, not just a process) is noticed by the server within about
# idle + count * interval seconds, and its locks dropped.
_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
_HOLDER_SQL = """
SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid
LIMIT 1
"""


def writer_key(table: str, session_id: str) -> int:
    """A stable signed 64-bit advisory-lock key for one session of one table."""
    digest = hashlib.sha256(f"loopwright-writer:{table}:{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def application_name() -> str:
    """This process's lock connection as other processes see it in ``pg_stat_activity``."""
    return f"{APPLICATION_PREFIX} pid={os.getpid()} host={socket.gethostname()}"[:63]


class WriterLocks:
    """The writer locks one process holds on one database (per event loop)."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._conn: Any = None
        self._io = asyncio.Lock()  # one statement at a time on the lock connection
        self._claimed: set[int] = set()  # held, or being taken, by this process
        self._held: set[int] = set()
        # Released here, unlock not yet sent: taking one again needs no round trip (the
        # lock connection still holds it), and its queued unlock then does nothing.
        self._releasing: set[int] = set()
        self._unlocking: set[asyncio.Task[None]] = set()
        self._answered_at = float("-inf")

    async def acquire(self, session_id: str, key: int) -> None:
        """Hold ``key`` for ``session_id`` or raise SessionBusyError (never waits for it)."""
        if key in self._claimed:
            raise SessionBusyError(session_id, os.getpid())
        self._claimed.add(key)
        if key in self._releasing:
            self._releasing.discard(key)
            self._held.add(key)
            return
        try:
            async with self._io:
                got, holder = await self._try_lock(key)
        except BaseException as exc:
            self._claimed.discard(key)
            if isinstance(exc, _psycopg().Error):
                raise SessionError(
                    f"cannot lock session {session_id!r} for writing on PostgreSQL ({exc}); "
                    "check that the server is running and reachable, then resume again"
                ) from exc
            raise
        if not got:
            self._claimed.discard(key)
            pid, host = holder or (None, None)
            raise SessionBusyError(session_id, pid, host=host)
        self._held.add(key)

    async def _try_lock(self, key: int) -> tuple[bool, tuple[int | None, str | None] | None]:
        """Whether ``key`` is ours now, else who holds it."""

        async def attempt(conn: Any) -> tuple[bool, tuple[int | None, str | None] | None]:
            got = bool(await _scalar(conn, "SELECT pg_try_advisory_lock(%s)", (key,)))
            return got, (None if got else await _holder(conn, key))

        return await self._on_connection(attempt)

    async def ping(self) -> None:
        """A round trip to the server; psycopg's OperationalError if it is not there.
        Answers from memory for a second after the last answer (many waiting sessions
        ask at once)."""
        async with self._io:
            if time.monotonic() - self._answered_at < PING_MEMORY_SECONDS:
                return  # asked and answered while this one waited its turn
            await self._on_connection(lambda conn: conn.execute("SELECT 1"))
            self._answered_at = time.monotonic()

    async def _on_connection(self, operation: Callable[[Any], Awaitable[T]]) -> T:
        """``operation`` on the lock connection (held ``_io``); a connection that broke
        (a server restart) is opened again, once."""
        for attempt in (1, 2):
            conn = await self._connection()
            try:
                return await operation(conn)
            except _psycopg().OperationalError:
                if attempt == 2 or not conn.closed:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def release(self, key: int) -> None:
        """Let go of ``key``; the unlock goes out on the running loop (a lock connection that
        is gone, or a loop that has ended, already dropped it)."""
        if key not in self._held:
            return
        self._held.discard(key)
        self._claimed.discard(key)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._releasing.add(key)
        task = loop.create_task(self._unlock(key))
        self._unlocking.add(task)
        task.add_done_callback(self._unlocking.discard)

    async def _unlock(self, key: int) -> None:
        async with self._io:
            if key not in self._releasing:
                return  # taken again meanwhile: it stays held
            self._releasing.discard(key)
            if self._conn is None or self._conn.closed:
                return  # the lock went with the connection
            with contextlib.suppress(_psycopg().Error):
                await self._conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    async def _connection(self) -> Any:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        reconnecting = self._conn is not None
        self._conn = await _psycopg().AsyncConnection.connect(
            self._conninfo,
            autocommit=True,
            application_name=application_name(),
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            **_KEEPALIVES,
        )
        if reconnecting:  # the server dropped our locks with the old connection
            self._releasing.clear()
            for key in list(self._held):
                if not await _scalar(self._conn, "SELECT pg_try_advisory_lock(%s)", (key,)):
                    self._held.discard(key)  # another writer took it meanwhile
                    self._claimed.discard(key)
        return self._conn

    async def aclose(self) -> None:
        """Send pending unlocks, then close the connection (which drops any lock left)."""
        if self._unlocking:
            await asyncio.gather(*self._unlocking, return_exceptions=True)
        async with self._io:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()
        self._held.clear()
        self._claimed.clear()
        self._releasing.clear()


class PostgresWriterLock:
    """One session's writer lock (see :meth:`PostgresStore.lock_session`); release is
    idempotent."""

    def __init__(self, locks: WriterLocks, session_id: str, key: int) -> None:
        self._locks: WriterLocks | None = locks
        self.session_id = session_id
        self._key = key

    @property
    def held(self) -> bool:
        return self._locks is not None

    def release(self) -> None:
        locks, self._locks = self._locks, None
        if locks is not None:
            locks.release(self._key)


async def _scalar(conn: Any, sql: str, args: tuple[Any, ...]) -> Any:
    cursor = await conn.execute(sql, args)
    row = await cursor.fetchone()
    return row[0] if row else None


async def _holder(conn: Any, key: int) -> tuple[int | None, str | None] | None:
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    name = await _scalar(conn, _HOLDER_SQL, (unsigned >> 32, unsigned & 0xFFFFFFFF))
    found = _HOLDER.search(str(name or ""))
    return (int(found.group(1)), found.group(2) or None) if found else None


def _psycopg() -> Any:
    # Imported by name: psycopg is optional and may be absent where types are checked.
    return importlib.import_module("psycopg")
