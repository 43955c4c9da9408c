"""``agents.usage``."""

from loopwright.compat._openai_context import Usage

__all__ = ["Usage"]
