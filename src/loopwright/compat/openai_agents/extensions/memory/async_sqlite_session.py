"""``agents.extensions.memory.async_sqlite_session``."""

from loopwright.compat._openai_memory_advanced import AsyncSQLiteSession

__all__ = ["AsyncSQLiteSession"]
