"""``agents.memory.session_settings``."""

from loopwright.compat._openai_memory import SessionSettings

__all__ = ["SessionSettings"]
