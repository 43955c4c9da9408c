"""``agents.models.openai_chatcompletions``."""

from loopwright.compat._openai_models import OpenAIChatCompletionsModel

__all__ = ["OpenAIChatCompletionsModel"]
