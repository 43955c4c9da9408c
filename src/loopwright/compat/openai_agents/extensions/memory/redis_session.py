"""``agents.extensions.memory.redis_session`` (not provided: raises a UserError)."""

from loopwright.compat.openai_agents._unsupported import RedisSession

__all__ = ["RedisSession"]
