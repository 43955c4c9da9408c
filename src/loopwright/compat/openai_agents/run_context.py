"""``agents.run_context``."""

from loopwright.compat._openai_context import AgentHookContext, RunContextWrapper, TContext

__all__ = ["AgentHookContext", "RunContextWrapper", "TContext"]
