"""``agents.models.multi_provider``."""

from loopwright.compat.openai_agents._impl.providers import MultiProvider, MultiProviderMap

__all__ = ["MultiProvider", "MultiProviderMap"]
