"""``agents.run_context``."""

from loopwright.compat.openai_agents._impl.context import (
    AgentHookContext,
    RunContextWrapper,
    TContext,
)

__all__ = ["AgentHookContext", "RunContextWrapper", "TContext"]
