"""``AdvancedSQLiteSession``: a SQLite session with conversation branches and usage per
turn, as that SDK's extension offers them.

A user message starts a turn. Each item is stored with its branch and turn; a branch made
from turn N copies the current branch's items before turn N and becomes current, so the
conversation can go another way from there. ``store_run_usage(result)`` records a run's
usage against the current turn.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from loopwright.compat.openai_agents._impl.memory import SessionABC, SessionSettings, SQLiteSession

MAIN = "main"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS {messages} (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    branch_id TEXT NOT NULL DEFAULT 'main', turn INTEGER NOT NULL DEFAULT 0,
    message_data TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX IF NOT EXISTS idx_{messages}_branch ON {messages} (session_id, branch_id, id);
CREATE TABLE IF NOT EXISTS {messages}_branches (
    session_id TEXT NOT NULL, branch_id TEXT NOT NULL,
    created_at TEXT DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (session_id, branch_id));
CREATE TABLE IF NOT EXISTS {messages}_turn_usage (
    session_id TEXT NOT NULL, branch_id TEXT NOT NULL, turn INTEGER NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0,
    input_tokens_details TEXT, output_tokens_details TEXT,
    PRIMARY KEY (session_id, branch_id, turn));
"""


def _is_user_message(item: dict[str, Any]) -> bool:
    return item.get("role") == "user" and item.get("type", "message") == "message"


def _kind(item: dict[str, Any]) -> str:
    if "role" in item and item.get("type", "message") == "message":
        return str(item["role"])
    return str(item.get("type", "unknown"))


def _content(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))  # type: ignore[misc]
    return ""


class AdvancedSQLiteSession(SessionABC):
    """A SQLite session with branches (``create_branch_from_turn``, ``switch_to_branch``)
    and usage tracking (``store_run_usage``, ``get_session_usage``, ``get_turn_usage``)."""

    def __init__(
        self,
        *,
        session_id: str,
        db_path: str | Path = ":memory:",
        create_tables: bool = False,
        logger: Any = None,
        session_settings: SessionSettings | None = None,
        messages_table: str = "agent_messages",
        **_: Any,
    ) -> None:
        self.session_id = session_id
        self.session_settings = session_settings
        self.current_branch_id = MAIN
        self._t = messages_table
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(db_path), check_same_thread=False)
        # The tables are made either way: a file made by another program has them already.
        self._db.executescript(_SCHEMA.format(messages=messages_table))
        self._db.execute(
            f"INSERT OR IGNORE INTO {self._t}_branches (session_id, branch_id) VALUES (?, ?)",
            (session_id, MAIN),
        )
        self._db.commit()

    # ------------------------------------------------------------------ plumbing

    def _rows(self, sql: str, *args: Any) -> list[Any]:
        with self._lock:
            return self._db.execute(sql.format(t=self._t), args).fetchall()

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        with self._lock:
            self._db.executemany(sql.format(t=self._t), rows)
            self._db.commit()

    async def _run(self, function: Any, *args: Any) -> Any:
        return await asyncio.to_thread(function, *args)

    def _branch(self, branch_id: str | None) -> str:
        return branch_id or self.current_branch_id

    def _last_turn(self, branch_id: str) -> int:
        rows = self._rows(
            "SELECT MAX(turn) FROM {t} WHERE session_id = ? AND branch_id = ?",
            self.session_id,
            branch_id,
        )
        return int(rows[0][0] or 0)

    # ------------------------------------------------------------------ Session

    async def get_items(
        self, limit: int | None = None, branch_id: str | None = None
    ) -> list[dict[str, Any]]:
        rows = await self._run(
            self._rows,
            "SELECT message_data FROM {t} WHERE session_id = ? AND branch_id = ? ORDER BY id",
            self.session_id,
            self._branch(branch_id),
        )
        items = [json.loads(r[0]) for r in rows]
        chosen = limit if limit is not None else (self.session_settings or SessionSettings()).limit
        return items[-chosen:] if chosen else items

    def _add(self, items: list[dict[str, Any]]) -> None:
        branch = self.current_branch_id
        turn = self._last_turn(branch)
        rows: list[tuple[Any, ...]] = []
        for item in items:
            if _is_user_message(item):
                turn += 1
            rows.append((self.session_id, branch, turn, json.dumps(item, default=str)))
        self._write(
            "INSERT INTO {t} (session_id, branch_id, turn, message_data) VALUES (?, ?, ?, ?)",
            rows,
        )

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await self._run(self._add, items)

    def _pop(self) -> dict[str, Any] | None:
        rows = self._rows(
            "SELECT id, message_data FROM {t} WHERE session_id = ? AND branch_id = ? "
            "ORDER BY id DESC LIMIT 1",
            self.session_id,
            self.current_branch_id,
        )
        if not rows:
            return None
        self._write("DELETE FROM {t} WHERE id = ?", [(rows[0][0],)])
        return json.loads(rows[0][1])  # type: ignore[no-any-return]

    async def pop_item(self) -> dict[str, Any] | None:
        return await self._run(self._pop)

    def _clear(self) -> None:
        for table in ("{t}", "{t}_turn_usage", "{t}_branches"):
            self._write(f"DELETE FROM {table} WHERE session_id = ?", [(self.session_id,)])
        self._write(
            "INSERT OR IGNORE INTO {t}_branches (session_id, branch_id) VALUES (?, ?)",
            [(self.session_id, MAIN)],
        )
        self.current_branch_id = MAIN

    async def clear_session(self) -> None:
        await self._run(self._clear)

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ usage

    def _store_usage(self, usage: Any) -> None:
        branch = self.current_branch_id
        turn = self._last_turn(branch)
        details_in = getattr(usage, "input_tokens_details", None)
        details_out = getattr(usage, "output_tokens_details", None)
        self._write(
            "INSERT OR REPLACE INTO {t}_turn_usage (session_id, branch_id, turn, requests, "
            "input_tokens, output_tokens, total_tokens, input_tokens_details, "
            "output_tokens_details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    self.session_id,
                    branch,
                    turn,
                    int(usage.requests),
                    int(usage.input_tokens),
                    int(usage.output_tokens),
                    int(usage.total_tokens),
                    json.dumps(_details(details_in)),
                    json.dumps(_details(details_out)),
                )
            ],
        )

    async def store_run_usage(self, result: Any) -> None:
        """Record ``result.context_wrapper.usage`` against the current turn."""
        usage = getattr(getattr(result, "context_wrapper", None), "usage", None)
        if usage is not None:
            await self._run(self._store_usage, usage)

    async def get_session_usage(self, branch_id: str | None = None) -> dict[str, int] | None:
        rows = await self._run(
            self._rows,
            "SELECT SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(total_tokens), "
            "COUNT(*) FROM {t}_turn_usage WHERE session_id = ? AND branch_id = ?",
            self.session_id,
            self._branch(branch_id),
        )
        requests, input_tokens, output_tokens, total_tokens, turns = rows[0]
        if not turns:
            return None
        return {
            "requests": int(requests),
            "input_tokens": int(input_tokens),
            "output_tokens": int(output_tokens),
            "total_tokens": int(total_tokens),
            "total_turns": int(turns),
        }

    async def get_turn_usage(
        self, user_turn_number: int | None = None, branch_id: str | None = None
    ) -> list[dict[str, Any]] | dict[str, Any]:
        rows = await self._run(
            self._rows,
            "SELECT turn, requests, input_tokens, output_tokens, total_tokens, "
            "input_tokens_details, output_tokens_details FROM {t}_turn_usage "
            "WHERE session_id = ? AND branch_id = ? ORDER BY turn",
            self.session_id,
            self._branch(branch_id),
        )
        usage = [
            {
                "user_turn_number": r[0],
                "requests": r[1],
                "input_tokens": r[2],
                "output_tokens": r[3],
                "total_tokens": r[4],
                "input_tokens_details": json.loads(r[5] or "null"),
                "output_tokens_details": json.loads(r[6] or "null"),
            }
            for r in rows
        ]
        if user_turn_number is None:
            return usage
        return next((u for u in usage if u["user_turn_number"] == user_turn_number), {})

    # ------------------------------------------------------------------ turns

    async def _turn_items(self, branch_id: str | None) -> list[tuple[int, dict[str, Any]]]:
        rows = await self._run(
            self._rows,
            "SELECT turn, message_data FROM {t} WHERE session_id = ? AND branch_id = ? ORDER BY id",
            self.session_id,
            self._branch(branch_id),
        )
        return [(int(r[0]), json.loads(r[1])) for r in rows]

    async def get_conversation_turns(self, branch_id: str | None = None) -> list[dict[str, Any]]:
        """The user messages that start each turn: ``turn``, ``content`` (first 100
        characters), ``full_content``, ``can_branch``."""
        return [
            {
                "turn": turn,
                "content": _content(item)[:100],
                "full_content": _content(item),
                "can_branch": True,
            }
            for turn, item in await self._turn_items(branch_id)
            if _is_user_message(item)
        ]

    async def find_turns_by_content(
        self, search_term: str, branch_id: str | None = None
    ) -> list[dict[str, Any]]:
        needle = search_term.lower()
        turns = await self.get_conversation_turns(branch_id)
        return [t for t in turns if needle in t["full_content"].lower()]

    async def get_conversation_by_turns(
        self, branch_id: str | None = None
    ) -> dict[int, list[dict[str, str | None]]]:
        by_turn: dict[int, list[dict[str, str | None]]] = {}
        for turn, item in await self._turn_items(branch_id):
            tool = str(item["name"]) if item.get("type") == "function_call" else None
            by_turn.setdefault(turn, []).append({"type": _kind(item), "tool_name": tool})
        return by_turn

    async def get_tool_usage(self, branch_id: str | None = None) -> list[tuple[str, int, int]]:
        """(tool name, calls, turn) for each tool called in each turn."""
        counts: dict[tuple[str, int], int] = {}
        for turn, item in await self._turn_items(branch_id):
            if item.get("type") == "function_call":
                key = (str(item.get("name")), turn)
                counts[key] = counts.get(key, 0) + 1
        return [(name, count, turn) for (name, turn), count in counts.items()]

    # ------------------------------------------------------------------ branches

    def _copy_before(self, turn: int, new_branch: str) -> None:
        self._write(
            "INSERT INTO {t}_branches (session_id, branch_id) VALUES (?, ?)",
            [(self.session_id, new_branch)],
        )
        self._write(
            "INSERT INTO {t} (session_id, branch_id, turn, message_data) "
            "SELECT session_id, ?, turn, message_data FROM {t} "
            "WHERE session_id = ? AND branch_id = ? AND turn < ? ORDER BY id",
            [(new_branch, self.session_id, self.current_branch_id, turn)],
        )

    async def create_branch_from_turn(
        self, turn_number: int, branch_name: str | None = None
    ) -> str:
        """A new branch with the items before ``turn_number``; it becomes current."""
        turns = [t["turn"] for t in await self.get_conversation_turns()]
        if turn_number not in turns:
            raise ValueError(
                f"turn {turn_number} is not a user turn of branch {self.current_branch_id!r} "
                f"(its turns: {turns}); pick one from get_conversation_turns()"
            )
        branch = branch_name or f"branch_from_turn_{turn_number}_{int(time.time())}"
        if branch in [b["branch_id"] for b in await self.list_branches()]:
            raise ValueError(f"a branch named {branch!r} exists already; choose another name")
        await self._run(self._copy_before, turn_number, branch)
        self.current_branch_id = branch
        return branch

    async def create_branch_from_content(
        self, search_term: str, branch_name: str | None = None
    ) -> str:
        found = await self.find_turns_by_content(search_term)
        if not found:
            raise ValueError(f"no user turn contains {search_term!r}; search for other words")
        return await self.create_branch_from_turn(int(found[0]["turn"]), branch_name)

    async def switch_to_branch(self, branch_id: str) -> None:
        if branch_id not in [b["branch_id"] for b in await self.list_branches()]:
            raise ValueError(
                f"there is no branch {branch_id!r}; list_branches() names the branches"
            )
        self.current_branch_id = branch_id

    async def delete_branch(self, branch_id: str, force: bool = False) -> None:
        if branch_id == MAIN:
            raise ValueError("the main branch cannot be deleted; clear_session() empties it")
        if branch_id == self.current_branch_id:
            if not force:
                raise ValueError(
                    f"{branch_id!r} is the current branch; switch_to_branch() elsewhere first, "
                    "or pass force=True (which switches to main)"
                )
            self.current_branch_id = MAIN
        for table in ("{t}", "{t}_turn_usage", "{t}_branches"):
            await self._run(
                self._write,
                f"DELETE FROM {table} WHERE session_id = ? AND branch_id = ?",
                [(self.session_id, branch_id)],
            )

    async def list_branches(self) -> list[dict[str, Any]]:
        rows = await self._run(
            self._rows,
            "SELECT b.branch_id, b.created_at, "
            "(SELECT COUNT(*) FROM {t} m WHERE m.session_id = b.session_id "
            "AND m.branch_id = b.branch_id), "
            "(SELECT COUNT(DISTINCT turn) FROM {t} m WHERE m.session_id = b.session_id "
            "AND m.branch_id = b.branch_id AND m.turn > 0) "
            "FROM {t}_branches b WHERE b.session_id = ? ORDER BY b.rowid",
            self.session_id,
        )
        return [
            {
                "branch_id": r[0],
                "created_at": r[1],
                "message_count": int(r[2]),
                "user_turns": int(r[3]),
                "is_current": r[0] == self.current_branch_id,
            }
            for r in rows
        ]


def _details(details: Any) -> Any:
    if details is None:
        return None
    if hasattr(details, "model_dump"):
        return details.model_dump()
    return {k: v for k, v in vars(details).items() if not k.startswith("_")}


class AsyncSQLiteSession(SessionABC):
    """``SQLiteSession`` with an awaitable ``close()``, as that SDK's aiosqlite session."""

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
        self._inner = SQLiteSession(
            session_id, db_path, sessions_table, messages_table, session_settings
        )

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return await self._inner.get_items(limit)

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await self._inner.add_items(items)

    async def pop_item(self) -> dict[str, Any] | None:
        return await self._inner.pop_item()

    async def clear_session(self) -> None:
        await self._inner.clear_session()

    async def close(self) -> None:
        self._inner.close()
