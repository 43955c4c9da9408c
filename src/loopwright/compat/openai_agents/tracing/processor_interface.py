"""``agents.tracing.processor_interface``."""

from loopwright.compat._openai_tracing import TracingProcessor

__all__ = ["TracingProcessor"]
