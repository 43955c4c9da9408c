"""The OpenAI Agents SDK's core API (``Agent``, ``Runner``, ``function_tool``) on loopwright.

Replace ``from agents import ...`` with ``from loopwright.compat.openai_agents import ...``.
An agent runs as a loopwright session that sees exactly the agent's own tools, runs them
without permission prompts (that SDK has none), reads no settings files and keeps no
transcript, as a Runner run does. Behaviour kept from that SDK:

* ``max_turns`` (default 10) counts model calls; going past it raises ``MaxTurnsExceeded``.
* ``final_output`` is the last text, or an instance of ``output_type`` (a pydantic model,
  dataclass, TypedDict or any type pydantic can validate) built from structured output.
* ``model`` strings go through loopwright's registry ("gpt-5" → OpenAI Responses API);
  ``LOOPWRIGHT_MODEL`` replaces them, and a loopwright Model object may be passed instead.

Not supported, with a clear error: handoffs, guardrails, sessions, ``previous_response_id``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

from loopwright.client import query as native_query
from loopwright.compat._model_choice import warn_ignored
from loopwright.compat._openai_agent import (
    Agent,
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    ModelSettings,
    UserError,
    function_tool,
)
from loopwright.compat._openai_context import RunContextWrapper, run_context
from loopwright.compat._openai_items import (
    AgentStreamEvent,
    AgentUpdatedStreamEvent,
    ItemHelpers,
    MessageOutputItem,
    RawResponsesStreamEvent,
    ResponseDeltaEvent,
    ResponseTextDeltaEvent,
    RunItem,
    RunItemStreamEvent,
    ToolCallItem,
    ToolCallOutputItem,
    events_of,
    items_of,
)
from loopwright.compat._openai_run import DEFAULT_MAX_TURNS, RunResult, plan_run
from loopwright.messages import Message, ResultMessage
from loopwright.tools.base import FunctionTool

# --------------------------------------------------------------------------- runner


class Runner:
    """Runs an agent to its final output: ``run`` (async), ``run_sync``, ``run_streamed``."""

    @classmethod
    async def run(
        cls,
        starting_agent: Agent,
        input: str | list[Any],
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        hooks: Any = None,
        run_config: Any = None,
        previous_response_id: str | None = None,
        session: Any = None,
    ) -> RunResult:
        _unsupported_run_arguments(hooks, run_config, previous_response_id, session)
        plan = await plan_run(starting_agent, input, context, max_turns, streaming=False)
        items: list[RunItem] = []
        result: ResultMessage | None = None
        with run_context(context):  # what context-taking tools receive
            async for message in native_query(plan.prompt, plan.options):
                items.extend(items_of(message, starting_agent))
                if isinstance(message, ResultMessage):
                    result = message
        if result is None:  # pragma: no cover - the loop always ends with a result
            raise AgentsException("the run ended without a result")
        return RunResult(input, plan.final_output(result), starting_agent, items, result)

    @classmethod
    def run_sync(
        cls,
        starting_agent: Agent,
        input: str | list[Any],
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        hooks: Any = None,
        run_config: Any = None,
        previous_response_id: str | None = None,
        session: Any = None,
    ) -> RunResult:
        """Blocking :meth:`run`; like the original, not for use inside a running event loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass  # no loop running: the one case run_sync can serve
        else:
            raise RuntimeError(
                "Runner.run_sync() cannot run inside a running event loop (async code, "
                "Jupyter); use `await Runner.run(...)` there instead"
            )
        return asyncio.run(
            cls.run(
                starting_agent,
                input,
                context=context,
                max_turns=max_turns,
                hooks=hooks,
                run_config=run_config,
                previous_response_id=previous_response_id,
                session=session,
            )
        )

    @classmethod
    def run_streamed(
        cls,
        starting_agent: Agent,
        input: str | list[Any],
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        hooks: Any = None,
        run_config: Any = None,
        previous_response_id: str | None = None,
        session: Any = None,
    ) -> RunResultStreaming:
        """Start a run whose events arrive through ``stream_events()``; ``final_output`` is
        set once the stream is exhausted."""
        _unsupported_run_arguments(hooks, run_config, previous_response_id, session)
        return RunResultStreaming(starting_agent, input, context, max_turns)


def _unsupported_run_arguments(
    hooks: Any, run_config: Any, previous_response_id: str | None, session: Any
) -> None:
    if session is not None or previous_response_id is not None:
        raise NotImplementedError(
            "session= and previous_response_id= are not supported by loopwright's openai_agents "
            "layer; use loopwright.Client (or Options(resume=...)) for conversations that go on"
        )
    warn_ignored("Runner", [n for n, v in (("hooks", hooks), ("run_config", run_config)) if v])


class RunResultStreaming:
    """A run in progress. Iterate ``stream_events()`` to drive it; afterwards
    ``final_output``, ``new_items`` and ``is_complete`` are set."""

    def __init__(self, agent: Agent, input: str | list[Any], context: Any, max_turns: int):
        self.current_agent = agent
        self.last_agent = agent
        self.input = input
        self.max_turns = max_turns
        self.final_output: Any = None
        self.new_items: list[RunItem] = []
        self.raw_result: ResultMessage | None = None
        self.is_complete = False
        self._context = context
        self._cancelled = False

    def cancel(self) -> None:
        """Stop after the event being handled; the stream then ends without a final output."""
        self._cancelled = True

    async def stream_events(self) -> AsyncIterator[AgentStreamEvent]:
        if self.is_complete:
            return
        agent = self.current_agent
        plan = await plan_run(agent, self.input, self._context, self.max_turns, streaming=True)
        yield AgentUpdatedStreamEvent(agent)
        # query() is an async generator; closing it early (cancel) closes the session now.
        stream = cast(AsyncGenerator[Message, None], native_query(plan.prompt, plan.options))
        try:
            with run_context(self._context):
                async for event in self._relay(stream, agent):
                    yield event
        finally:
            await stream.aclose()
            self.is_complete = True
        if self.raw_result is not None:
            self.final_output = plan.final_output(self.raw_result)

    async def _relay(
        self, stream: AsyncGenerator[Message, None], agent: Agent
    ) -> AsyncIterator[AgentStreamEvent]:
        async for message in stream:
            self.new_items.extend(items_of(message, agent))
            if isinstance(message, ResultMessage):
                self.raw_result = message
            for event in events_of(message, agent):
                yield event
            if self._cancelled:
                return


__all__ = [
    "Agent",
    "AgentStreamEvent",
    "AgentUpdatedStreamEvent",
    "AgentsException",
    "FunctionTool",
    "ItemHelpers",
    "MaxTurnsExceeded",
    "MessageOutputItem",
    "ModelBehaviorError",
    "ModelSettings",
    "RawResponsesStreamEvent",
    "ResponseDeltaEvent",
    "ResponseTextDeltaEvent",
    "RunContextWrapper",
    "RunItem",
    "RunItemStreamEvent",
    "RunResult",
    "RunResultStreaming",
    "Runner",
    "ToolCallItem",
    "ToolCallOutputItem",
    "UserError",
    "function_tool",
]
