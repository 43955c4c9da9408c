"""``SQLAlchemySession``: a session's items in any database SQLAlchemy's async engine
reaches (``sqlite+aiosqlite://``, ``postgresql+psycopg://``, ``postgresql+asyncpg://``…),
with that SDK's two tables (``agent_sessions``, ``agent_messages``). Needs the optional
extra ``loopwright[sqlalchemy]`` (SQLAlchemy, aiosqlite)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.memory import SessionABC, SessionSettings

if TYPE_CHECKING:  # sqlalchemy is optional: its types only for the checker
    from sqlalchemy.ext.asyncio import AsyncEngine


def _sqlalchemy() -> Any:
    try:  # sqlalchemy is optional (the sqlalchemy extra): loaded when a session asks
        import sqlalchemy
        from sqlalchemy.ext import asyncio as sqlalchemy_asyncio
    except ImportError as exc:
        raise UserError(
            "SQLAlchemySession needs SQLAlchemy: pip install 'loopwright[sqlalchemy]'"
        ) from exc
    return sqlalchemy, sqlalchemy_asyncio


class SQLAlchemySession(SessionABC):
    """Items in a database through an ``AsyncEngine``; ``create_tables=True`` makes the
    tables (else they must exist, as after a migration)."""

    def __init__(
        self,
        session_id: str,
        *,
        engine: AsyncEngine,
        create_tables: bool = False,
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        session_settings: SessionSettings | None = None,
        ensure_ascii: bool = True,
    ) -> None:
        sa, _ = _sqlalchemy()
        self.session_id = session_id
        self.session_settings = session_settings or SessionSettings()
        self._engine = engine
        self._ensure_ascii = ensure_ascii
        self._create_tables = create_tables
        self._tables_ready = not create_tables
        self._init_lock = asyncio.Lock()
        self._metadata = sa.MetaData()
        now = sa.text("CURRENT_TIMESTAMP")
        self._sessions = sa.Table(
            sessions_table,
            self._metadata,
            sa.Column("session_id", sa.String, primary_key=True),
            sa.Column("created_at", sa.TIMESTAMP, server_default=now, nullable=False),
            sa.Column("updated_at", sa.TIMESTAMP, server_default=now, nullable=False),
        )
        self._messages = sa.Table(
            messages_table,
            self._metadata,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "session_id",
                sa.String,
                sa.ForeignKey(f"{sessions_table}.session_id", ondelete="CASCADE"),
                nullable=False,
            ),
            sa.Column("message_data", sa.Text, nullable=False),
            sa.Column("created_at", sa.TIMESTAMP, server_default=now, nullable=False),
            sa.Index(f"idx_{messages_table}_session_time", "session_id", "created_at"),
            sqlite_autoincrement=True,
        )

    @classmethod
    def from_url(
        cls,
        session_id: str,
        *,
        url: str,
        engine_kwargs: dict[str, Any] | None = None,
        session_settings: SessionSettings | None = None,
        **kwargs: Any,
    ) -> SQLAlchemySession:
        """A session on a new engine for ``url`` (an async driver URL)."""
        _, sa_async = _sqlalchemy()
        engine = sa_async.create_async_engine(url, **(engine_kwargs or {}))
        return cls(session_id, engine=engine, session_settings=session_settings, **kwargs)

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    async def _ensure_tables(self) -> None:
        if self._tables_ready:
            return
        async with self._init_lock:
            if not self._tables_ready:
                async with self._engine.begin() as connection:
                    await connection.run_sync(self._metadata.create_all)
                self._tables_ready = True

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        sa, _ = _sqlalchemy()
        await self._ensure_tables()
        chosen = limit if limit is not None else (self.session_settings or SessionSettings()).limit
        column = self._messages.c
        query = sa.select(column.message_data).where(column.session_id == self.session_id)
        if chosen:
            query = query.order_by(column.id.desc()).limit(chosen)
        else:
            query = query.order_by(column.id.asc())
        async with self._engine.connect() as connection:
            rows = [r[0] for r in (await connection.execute(query)).all()]
        if chosen:
            rows.reverse()
        items: list[dict[str, Any]] = []
        for row in rows:
            try:
                items.append(json.loads(row))
            except json.JSONDecodeError:
                continue  # a corrupt row is skipped, as that SDK does
        return items

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        if not items:
            return
        sa, _ = _sqlalchemy()
        await self._ensure_tables()
        payload = [
            {
                "session_id": self.session_id,
                "message_data": json.dumps(i, default=str, ensure_ascii=self._ensure_ascii),
            }
            for i in items
        ]
        async with self._engine.begin() as connection:
            exists = await connection.execute(
                sa.select(self._sessions.c.session_id).where(
                    self._sessions.c.session_id == self.session_id
                )
            )
            if exists.first() is None:
                await connection.execute(
                    sa.insert(self._sessions).values(session_id=self.session_id)
                )
            await connection.execute(sa.insert(self._messages), payload)
            await connection.execute(
                sa.update(self._sessions)
                .where(self._sessions.c.session_id == self.session_id)
                .values(updated_at=sa.func.current_timestamp())
            )

    async def pop_item(self) -> dict[str, Any] | None:
        sa, _ = _sqlalchemy()
        await self._ensure_tables()
        column = self._messages.c
        async with self._engine.begin() as connection:
            row = (
                await connection.execute(
                    sa.select(column.id, column.message_data)
                    .where(column.session_id == self.session_id)
                    .order_by(column.id.desc())
                    .limit(1)
                )
            ).first()
            if row is None:
                return None
            await connection.execute(sa.delete(self._messages).where(column.id == row[0]))
        try:
            return json.loads(row[1])  # type: ignore[no-any-return]
        except json.JSONDecodeError:
            return None

    async def clear_session(self) -> None:
        sa, _ = _sqlalchemy()
        await self._ensure_tables()
        async with self._engine.begin() as connection:
            await connection.execute(
                sa.delete(self._messages).where(self._messages.c.session_id == self.session_id)
            )
            await connection.execute(
                sa.delete(self._sessions).where(self._sessions.c.session_id == self.session_id)
            )
