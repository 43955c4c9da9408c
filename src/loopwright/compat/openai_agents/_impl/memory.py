"""Sessions of the OpenAI Agents layer: the ``Session`` protocol and ``SQLiteSession``.

A session keeps a conversation's input items between runs: the Runner reads them before a
run and appends the run's input and new items after it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@dataclass
class SessionSettings:
    limit: int | None = None


@runtime_checkable
class Session(Protocol):
    session_id: str

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]: ...
    async def add_items(self, items: list[dict[str, Any]]) -> None: ...
    async def pop_item(self) -> dict[str, Any] | None: ...
    async def clear_session(self) -> None: ...


class SessionABC:
    """Base class for custom sessions (same methods as :class:`Session`)."""

    session_id: str
    session_settings: SessionSettings | None = None


class SQLiteSession(SessionABC):
    """Items in a SQLite file (``":memory:"`` by default: this process only)."""

    def __init__(
        self,
        session_id: str,
        db_path: str | Path = ":memory:",
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.session_id = session_id
        self.session_settings = session_settings
        self._table = messages_table
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(str(db_path), check_same_thread=False)
        self._connection.execute(
            f"CREATE TABLE IF NOT EXISTS {messages_table} (id INTEGER PRIMARY KEY "
            "AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL)"
        )
        self._connection.execute(
            f"CREATE TABLE IF NOT EXISTS {sessions_table} (session_id TEXT PRIMARY KEY)"
        )
        self._connection.execute(
            f"INSERT OR IGNORE INTO {sessions_table} (session_id) VALUES (?)", (session_id,)
        )
        self._connection.commit()

    def _rows(self, limit: int | None) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._connection.execute(
                f"SELECT message_data FROM {self._table} WHERE session_id = ? ORDER BY id",
                (self.session_id,),
            ).fetchall()
        items = [json.loads(r[0]) for r in rows]
        chosen = limit if limit is not None else (self.session_settings or SessionSettings()).limit
        return items[-chosen:] if chosen else items

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self._rows, limit)

    def _add(self, items: list[dict[str, Any]]) -> None:
        with self._lock:
            self._connection.executemany(
                f"INSERT INTO {self._table} (session_id, message_data) VALUES (?, ?)",
                [(self.session_id, json.dumps(i, default=str)) for i in items],
            )
            self._connection.commit()

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await asyncio.to_thread(self._add, items)

    def _pop(self) -> dict[str, Any] | None:
        with self._lock:
            row = self._connection.execute(
                f"SELECT id, message_data FROM {self._table} WHERE session_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (self.session_id,),
            ).fetchone()
            if row is None:
                return None
            self._connection.execute(f"DELETE FROM {self._table} WHERE id = ?", (row[0],))
            self._connection.commit()
        return json.loads(row[1])  # type: ignore[no-any-return]

    async def pop_item(self) -> dict[str, Any] | None:
        return await asyncio.to_thread(self._pop)

    def _clear(self) -> None:
        with self._lock:
            self._connection.execute(
                f"DELETE FROM {self._table} WHERE session_id = ?", (self.session_id,)
            )
            self._connection.commit()

    async def clear_session(self) -> None:
        await asyncio.to_thread(self._clear)

    def close(self) -> None:
        self._connection.close()
