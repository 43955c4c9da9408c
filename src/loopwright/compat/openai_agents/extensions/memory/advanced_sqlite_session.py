"""``agents.extensions.memory.advanced_sqlite_session``."""

from loopwright.compat.openai_agents._impl.memory_advanced import AdvancedSQLiteSession

__all__ = ["AdvancedSQLiteSession"]
