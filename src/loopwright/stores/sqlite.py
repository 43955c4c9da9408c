"""SQLite store (stdlib ``sqlite3``, WAL): many sessions in one file, one row per entry.

Statements run synchronously inside the async methods: an autocommit INSERT in WAL mode
with ``synchronous=NORMAL`` costs tens of microseconds, less than a thread hop. A commit
is safe against a killed process at once; ``sync()`` checkpoints the WAL (with fsync) so
it also survives power loss. One writer per session: ``lock_session`` takes an OS file
lock beside the database (see :mod:`loopwright.stores.locks`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from loopwright.private_files import create_private_file
from loopwright.stores.base import (
    EntryList,
    InfoList,
    SessionError,
    StoreBase,
    loopwright_home,
    project_key,
    project_of_first_entry,
)
from loopwright.stores.entries import Entry
from loopwright.stores.jsonl import check_session_id
from loopwright.stores.locks import FileSessionLock
from loopwright.stores.sqlrows import decode, entry_row, infos_from_rows

_SCHEMA = """
CREATE TABLE IF NOT EXISTS {t} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    project TEXT NOT NULL,
    uuid TEXT NOT NULL,
    kind TEXT NOT NULL,
    ts REAL NOT NULL,
    prompt TEXT,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {t}_session ON {t} (session_id, seq);
CREATE INDEX IF NOT EXISTS {t}_project ON {t} (project, session_id);
"""
_INSERT = (
    "INSERT INTO {t} (session_id, project, uuid, kind, ts, prompt, body) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SQLiteStore(StoreBase):
    """Sessions in one SQLite database (default ``$LOOPWRIGHT_HOME/sessions.db``)."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        table: str = "loopwright_entries",
    ) -> None:
        if not table.isidentifier():
            raise SessionError(f"table name {table!r} must be a plain identifier")
        self.path = Path(path) if path is not None else loopwright_home() / "sessions.db"
        self.default_project = project_key(cwd if cwd is not None else os.getcwd())
        self._t = table
        self._conn: sqlite3.Connection | None = None
        self._projects: dict[str, str] = {}

    @property
    def location(self) -> str | None:
        return str(self.path)

    @property
    def _db(self) -> sqlite3.Connection:
        """Opened on first use: a database that cannot be opened (a read-only directory, a
        locked file) then fails inside the run, which ends it with an error result."""
        if self._conn is None:
            # Created 0600 before SQLite opens it: SQLite gives -wal and -shm its mode.
            create_private_file(self.path)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=10000")
            conn.executescript(_SCHEMA.format(t=self._t))
            self._conn = conn
        return self._conn

    def _project(self, session_id: str, first: Entry) -> str:
        known = self._projects.get(session_id)
        if known is None:
            row = self._db.execute(
                f"SELECT project FROM {self._t} WHERE session_id = ? LIMIT 1", (session_id,)
            ).fetchone()
            known = str(row[0]) if row else project_of_first_entry(first, self.default_project)
            self._projects[session_id] = known
        return known

    def lock_path(self, session_id: str) -> Path:
        """The session's lock file, beside the database: ``<db>.locks/<session id>.lock``."""
        return (
            self.path.with_name(f"{self.path.name}.locks") / f"{check_session_id(session_id)}.lock"
        )

    def lock_session(self, session_id: str) -> FileSessionLock:
        """Become the one writer of ``session_id`` until the returned lock is released.

        Raises :class:`SessionBusyError` at once if any writer holds it, in this process or
        another: an OS file lock (as the JSONL store's), which the kernel drops when its
        holder dies, so a crashed run never leaves a session locked. A SQLite database is
        on one machine, and so are its writers.
        """
        return FileSessionLock.acquire(session_id, self.lock_path(session_id))

    async def append(self, session_id: str, entry: Entry) -> None:
        project = self._project(session_id, entry)
        self._db.execute(_INSERT.format(t=self._t), entry_row(session_id, project, entry))

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        if not entries:
            return
        project = self._project(session_id, entries[0])
        rows = [entry_row(session_id, project, e) for e in entries]
        with self._db:  # one transaction: a fork is all or nothing
            self._db.execute("BEGIN")
            self._db.executemany(_INSERT.format(t=self._t), rows)

    async def load(self, session_id: str) -> EntryList:
        rows = self._db.execute(
            f"SELECT body FROM {self._t} WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
        return [decode(str(row[0])) for row in rows]

    async def list(self, project: str | None = None) -> InfoList:
        where, args = ("WHERE project = ?", (project,)) if project else ("", ())
        t = self._t
        aggregates = self._db.execute(
            f"SELECT session_id, min(project), min(ts), max(ts), count(*) FROM {t} {where} "
            "GROUP BY session_id",
            args,
        ).fetchall()
        and_where = f"AND {where[6:]}" if where else ""
        metas = self._db.execute(
            f"SELECT session_id, body FROM {t} WHERE kind = 'meta' {and_where} ORDER BY seq", args
        ).fetchall()
        prompts = self._db.execute(
            f"SELECT session_id, prompt FROM {t} WHERE seq IN (SELECT min(seq) FROM {t} "
            f"WHERE prompt IS NOT NULL {and_where} GROUP BY session_id)",
            args,
        ).fetchall()
        return infos_from_rows(aggregates, metas, prompts)

    async def delete(self, session_id: str) -> bool:
        cursor = self._db.execute(f"DELETE FROM {self._t} WHERE session_id = ?", (session_id,))
        self._projects.pop(session_id, None)
        return cursor.rowcount > 0

    async def sync(self) -> None:
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    async def aclose(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
