"""``agents.models``."""

from loopwright.compat._openai_models import get_default_model, is_gpt_5_default

__all__ = ["get_default_model", "is_gpt_5_default"]
