"""``agents.extensions.models.litellm_model`` (needs ``loopwright[litellm]``)."""

from loopwright.compat.openai_agents._impl.litellm import LitellmModel

__all__ = ["LitellmModel"]
