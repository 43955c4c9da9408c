"""``agents.models.interface``."""

from loopwright.compat.openai_agents._impl.model_interface import Model, ModelProvider, ModelTracing

__all__ = ["Model", "ModelProvider", "ModelTracing"]
