"""``agents.models``."""

from loopwright.compat.openai_agents._impl.model_interface import Model, ModelProvider, ModelTracing
from loopwright.compat.openai_agents._impl.models import get_default_model, is_gpt_5_default

__all__ = ["Model", "ModelProvider", "ModelTracing", "get_default_model", "is_gpt_5_default"]
