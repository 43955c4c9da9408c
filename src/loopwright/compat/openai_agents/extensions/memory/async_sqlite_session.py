"""``agents.extensions.memory.async_sqlite_session``."""

from loopwright.compat.openai_agents._impl.memory_advanced import AsyncSQLiteSession

__all__ = ["AsyncSQLiteSession"]
