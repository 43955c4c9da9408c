"""``agents.models.openai_provider``."""

from loopwright.compat._openai_providers import OpenAIProvider

__all__ = ["OpenAIProvider"]
