"""``agents.memory.session``."""

from loopwright.compat._openai_memory import Session, SessionABC

__all__ = ["Session", "SessionABC"]
