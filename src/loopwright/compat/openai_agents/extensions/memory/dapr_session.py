"""``agents.extensions.memory.dapr_session`` (not provided: raises a UserError)."""

from loopwright.compat.openai_agents._impl.unsupported import DaprSession

__all__ = ["DaprSession"]
