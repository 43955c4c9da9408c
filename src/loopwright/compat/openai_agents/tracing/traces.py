"""``agents.tracing.traces``."""

from loopwright.compat.openai_agents._impl.tracing import Trace

__all__ = ["Trace"]
