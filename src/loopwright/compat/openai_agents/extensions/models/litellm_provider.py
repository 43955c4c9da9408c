"""``agents.extensions.models.litellm_provider`` (needs ``loopwright[litellm]``)."""

from loopwright.compat._openai_litellm import LitellmProvider

__all__ = ["LitellmProvider"]
