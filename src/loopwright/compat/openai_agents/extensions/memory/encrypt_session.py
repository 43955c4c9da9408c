"""``agents.extensions.memory.encrypt_session``."""

from loopwright.compat._openai_memory_extra import EncryptedEnvelope, EncryptedSession

__all__ = ["EncryptedEnvelope", "EncryptedSession"]
