"""``agents.extensions.memory``: ``SQLAlchemySession`` (any SQL database through
SQLAlchemy's async engine; ``loopwright[sqlalchemy]``), ``AdvancedSQLiteSession``
(branches, usage per turn), ``AsyncSQLiteSession`` and ``EncryptedSession``. Redis, MongoDB
and Dapr sessions are not provided: making one raises a ``UserError`` that says what to use.
"""

from loopwright.compat.openai_agents._impl.memory_advanced import (
    AdvancedSQLiteSession,
    AsyncSQLiteSession,
)
from loopwright.compat.openai_agents._impl.memory_sqlalchemy import SQLAlchemySession
from loopwright.compat.openai_agents._impl.memory_wrappers import EncryptedSession
from loopwright.compat.openai_agents._impl.unsupported import (
    DaprSession,
    MongoDBSession,
    RedisSession,
)

__all__ = [
    "AdvancedSQLiteSession",
    "AsyncSQLiteSession",
    "DaprSession",
    "EncryptedSession",
    "MongoDBSession",
    "RedisSession",
    "SQLAlchemySession",
]
