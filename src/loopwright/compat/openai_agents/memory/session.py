"""``agents.memory.session``."""

from loopwright.compat.openai_agents._impl.memory import Session, SessionABC

__all__ = ["Session", "SessionABC"]
