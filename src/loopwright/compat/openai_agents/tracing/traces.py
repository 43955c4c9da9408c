"""``agents.tracing.traces``."""

from loopwright.compat._openai_tracing import Trace

__all__ = ["Trace"]
