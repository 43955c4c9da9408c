"""``agents.extensions.handoff_filters``."""

from loopwright.compat.openai_agents._impl.handoffs import remove_all_tools

__all__ = ["remove_all_tools"]
