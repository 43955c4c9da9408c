"""``agents.extensions.memory.sqlalchemy_session``."""

from loopwright.compat._openai_memory_sqlalchemy import SQLAlchemySession

__all__ = ["SQLAlchemySession"]
