"""``agents.models.openai_provider``."""

from loopwright.compat.openai_agents._impl.providers import OpenAIProvider

__all__ = ["OpenAIProvider"]
