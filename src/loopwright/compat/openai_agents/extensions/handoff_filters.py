"""``agents.extensions.handoff_filters``."""

from loopwright.compat._openai_handoffs import remove_all_tools

__all__ = ["remove_all_tools"]
