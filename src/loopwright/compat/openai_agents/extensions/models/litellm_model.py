"""``agents.extensions.models.litellm_model`` (needs ``loopwright[litellm]``)."""

from loopwright.compat._openai_litellm import LitellmModel

__all__ = ["LitellmModel"]
