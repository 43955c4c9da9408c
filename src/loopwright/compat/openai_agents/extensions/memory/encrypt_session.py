"""``agents.extensions.memory.encrypt_session``."""

from loopwright.compat.openai_agents._impl.memory_compaction import (
    EncryptedEnvelope,
    EncryptedSession,
)

__all__ = ["EncryptedEnvelope", "EncryptedSession"]
