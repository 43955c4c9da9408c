"""``agents.models``."""

from loopwright.compat._openai_model_interface import Model, ModelProvider, ModelTracing
from loopwright.compat._openai_models import get_default_model, is_gpt_5_default

__all__ = ["Model", "ModelProvider", "ModelTracing", "get_default_model", "is_gpt_5_default"]
