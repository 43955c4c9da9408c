"""``agents.extensions.memory.encrypt_session``."""

from loopwright.compat.openai_agents._impl.memory_wrappers import (
    EncryptedEnvelope,
    EncryptedSession,
)

__all__ = ["EncryptedEnvelope", "EncryptedSession"]
