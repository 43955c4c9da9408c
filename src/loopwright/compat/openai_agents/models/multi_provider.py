"""``agents.models.multi_provider``."""

from loopwright.compat._openai_providers import MultiProvider, MultiProviderMap

__all__ = ["MultiProvider", "MultiProviderMap"]
