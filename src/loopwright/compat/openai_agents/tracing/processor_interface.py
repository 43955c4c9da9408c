"""``agents.tracing.processor_interface``."""

from loopwright.compat.openai_agents._impl.tracing import TracingProcessor

__all__ = ["TracingProcessor"]
