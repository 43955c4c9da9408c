"""``agents.extensions.memory``: session wrappers (``EncryptedSession``). Database-backed
sessions of that SDK (Redis, SQLAlchemy, MongoDB, Dapr…) are not provided: use
``SQLiteSession`` or a class with the Session methods over your own store."""

from loopwright.compat._openai_memory_extra import EncryptedSession

__all__ = ["EncryptedSession"]
