"""``agents.extensions.memory.mongodb_session`` (not provided: raises a UserError)."""

from loopwright.compat.openai_agents._impl.unsupported import MongoDBSession

__all__ = ["MongoDBSession"]
