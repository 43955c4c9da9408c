"""``agents.extensions.memory.advanced_sqlite_session``."""

from loopwright.compat._openai_memory_advanced import AdvancedSQLiteSession

__all__ = ["AdvancedSQLiteSession"]
