"""``agents.tracing.spans``."""

from loopwright.compat.openai_agents._impl.tracing import Span, SpanError

__all__ = ["Span", "SpanError"]
