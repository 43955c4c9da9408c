"""``agents.models.openai_chatcompletions``."""

from loopwright.compat.openai_agents._impl.models import OpenAIChatCompletionsModel

__all__ = ["OpenAIChatCompletionsModel"]
