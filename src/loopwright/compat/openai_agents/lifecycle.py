"""``agents.lifecycle``."""

from loopwright.compat.openai_agents._impl.lifecycle import AgentHooks, RunHooks

__all__ = ["AgentHooks", "RunHooks"]
