"""``agents.models.openai_responses``."""

from loopwright.compat._openai_models import OpenAIResponsesModel

__all__ = ["OpenAIResponsesModel"]
