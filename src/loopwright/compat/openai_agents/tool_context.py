"""``agents.tool_context``."""

from loopwright.compat.openai_agents._impl.context import ToolContext

__all__ = ["ToolContext"]
