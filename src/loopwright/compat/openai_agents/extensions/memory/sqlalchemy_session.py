"""``agents.extensions.memory.sqlalchemy_session``."""

from loopwright.compat.openai_agents._impl.memory_sqlalchemy import SQLAlchemySession

__all__ = ["SQLAlchemySession"]
