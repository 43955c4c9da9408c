"""``agents.models.openai_responses``."""

from loopwright.compat.openai_agents._impl.models import OpenAIResponsesModel

__all__ = ["OpenAIResponsesModel"]
