"""``agents.usage``."""

from loopwright.compat.openai_agents._impl.context import Usage

__all__ = ["Usage"]
