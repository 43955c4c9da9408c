"""``agents.memory``."""

from loopwright.compat.openai_agents._impl.memory import (
    Session,
    SessionABC,
    SessionSettings,
    SQLiteSession,
)

__all__ = ["SQLiteSession", "Session", "SessionABC", "SessionSettings"]
