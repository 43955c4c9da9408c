"""``agents.memory``."""

from loopwright.compat._openai_memory import Session, SessionABC, SessionSettings, SQLiteSession

__all__ = ["SQLiteSession", "Session", "SessionABC", "SessionSettings"]
