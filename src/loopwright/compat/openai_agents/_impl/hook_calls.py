"""The run's lifecycle hooks (``RunHooks`` on the Runner, ``AgentHooks`` on an agent) as
one small value every part of a run that reports to them takes."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from loopwright.compat.openai_agents._impl.context import RunContextWrapper


async def call_hook(hooks: Any, name: str, *args: Any) -> None:
    """Call ``hooks.<name>`` when the user's hooks object defines it (sync or async)."""
    method = getattr(hooks, name, None) if hooks is not None else None
    if method is None:
        return
    produced = method(*args)
    if inspect.isawaitable(produced):
        await produced


@dataclass(frozen=True, slots=True)
class LifecycleHooks:
    """The Runner's hooks and the run's context; an agent's own hooks ride on the agent."""

    run_hooks: Any
    context: RunContextWrapper[Any]

    async def both(self, agent: Any, name: str, *args: Any) -> None:
        """The same event to the Runner's hooks and the agent's (same name, same args)."""
        await call_hook(self.run_hooks, name, *args)
        await call_hook(getattr(agent, "hooks", None), name, *args)

    async def agent_started(self, agent: Any) -> None:
        await call_hook(self.run_hooks, "on_agent_start", self.context, agent)
        await call_hook(getattr(agent, "hooks", None), "on_start", self.context, agent)

    async def agent_ended(self, agent: Any, output: Any) -> None:
        await call_hook(self.run_hooks, "on_agent_end", self.context, agent, output)
        await call_hook(getattr(agent, "hooks", None), "on_end", self.context, agent, output)

    async def agent_handed_off(self, source: Any, target: Any) -> None:
        context = self.context
        await call_hook(self.run_hooks, "on_handoff", context, source, target)
        await call_hook(getattr(target, "hooks", None), "on_handoff", context, target, source)
        await self.agent_started(target)
