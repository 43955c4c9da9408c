"""``agents.models.interface``."""

from loopwright.compat._openai_model_interface import Model, ModelProvider, ModelTracing

__all__ = ["Model", "ModelProvider", "ModelTracing"]
