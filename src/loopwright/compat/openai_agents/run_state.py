"""``agents.run_state``."""

from loopwright.compat._openai_results import RunState

__all__ = ["RunState"]
