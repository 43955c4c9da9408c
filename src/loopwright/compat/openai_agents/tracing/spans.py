"""``agents.tracing.spans``."""

from loopwright.compat._openai_tracing import Span, SpanError

__all__ = ["Span", "SpanError"]
