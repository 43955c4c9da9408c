"""``agents.extensions.models.litellm_provider`` (needs ``loopwright[litellm]``)."""

from loopwright.compat.openai_agents._impl.litellm import LitellmProvider

__all__ = ["LitellmProvider"]
