"""``agents.model_settings``."""

from loopwright.compat._openai_agent import ModelSettings

__all__ = ["ModelSettings"]
