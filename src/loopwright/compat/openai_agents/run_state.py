"""``agents.run_state``."""

from loopwright.compat.openai_agents._impl.results import RunState

__all__ = ["RunState"]
