"""``agents.memory.session_settings``."""

from loopwright.compat.openai_agents._impl.memory import SessionSettings

__all__ = ["SessionSettings"]
