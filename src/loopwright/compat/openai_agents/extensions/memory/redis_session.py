"""``agents.extensions.memory.redis_session`` (not provided: raises a UserError)."""

from loopwright.compat.openai_agents._impl.unsupported import RedisSession

__all__ = ["RedisSession"]
