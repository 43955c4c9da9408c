"""``agents.lifecycle``."""

from loopwright.compat.openai_agents._lifecycle import AgentHooks, RunHooks

__all__ = ["AgentHooks", "RunHooks"]
