"""``agents.model_settings``."""

from loopwright.compat.openai_agents._impl.agent import ModelSettings

__all__ = ["ModelSettings"]
