"""``agents.tool_context``."""

from loopwright.compat._openai_context import ToolContext

__all__ = ["ToolContext"]
