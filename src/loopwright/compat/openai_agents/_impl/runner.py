"""``Runner``: runs an agent to its final output — ``run``, ``run_sync``, ``run_streamed`` —
and resumes a paused run from its ``RunState``."""

from __future__ import annotations

import asyncio
from typing import Any

from loopwright.compat.openai_agents._impl.driver import DEFAULT_MAX_TURNS, RunDriver
from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.ports import AgentLike
from loopwright.compat.openai_agents._impl.results import (
    RunResult,
    RunResultStreaming,
    RunState,
    after_run,
    conversation_of,
)
from loopwright.compat.openai_agents._impl.run_config import RunConfig


def _input_items(input: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(input, str):
        return [{"content": input, "role": "user"}]
    if not input:
        raise UserError("input is an empty list; give the agent something to do")
    return [dict(i) if isinstance(i, dict) else i.model_dump(exclude_unset=True) for i in input]


async def _prepared_input(
    input: str | list[Any], previous_response_id: str | None, session: Any, run_config: RunConfig
) -> list[dict[str, Any]]:
    new_items = _input_items(input)
    earlier: list[dict[str, Any]] = []
    if previous_response_id is not None:
        earlier = await conversation_of(previous_response_id)
    if session is not None:
        stored = list(await session.get_items())
        callback = run_config.session_input_callback
        if callback is not None:
            produced = callback(stored, new_items)
            combined = await produced if asyncio.iscoroutine(produced) else produced
            return [*earlier, *combined]
        earlier = [*earlier, *stored]
    return [*earlier, *new_items]


class Runner:
    """Runs an agent to its final output: ``run`` (async), ``run_sync``, ``run_streamed``."""

    @classmethod
    async def run(
        cls,
        starting_agent: AgentLike,
        input: str | list[Any] | RunState,
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        hooks: Any = None,
        run_config: RunConfig | None = None,
        previous_response_id: str | None = None,
        auto_previous_response_id: bool = False,
        conversation_id: str | None = None,
        session: Any = None,
        error_handlers: Any = None,
    ) -> RunResult:
        run_config = run_config or RunConfig()  # a run without one runs on the defaults
        if conversation_id is not None:
            raise UserError(
                "conversation_id= names a conversation stored on OpenAI's servers; use a "
                "session (SQLiteSession) or previous_response_id= instead"
            )
        if isinstance(input, RunState):
            driver = input.resumed_driver(
                starting_agent,
                context=context,
                max_turns=max_turns,
                hooks=hooks,
                run_config=run_config,
                streaming=False,
            )
            result = RunResult(driver, driver.input_items)
            await driver.start()
        else:
            items = await _prepared_input(input, previous_response_id, session, run_config)
            driver = RunDriver(
                starting_agent,
                items,
                context=context,
                max_turns=max_turns,
                hooks=hooks,
                run_config=run_config,
                streaming=False,
            )
            result = RunResult(driver, input)
            result._session = session  # pyright: ignore[reportPrivateUsage]
            result._fresh_input = _input_items(input)  # pyright: ignore[reportPrivateUsage]
            await driver.start()
        async for _ in driver.events():
            pass
        result._settle()  # pyright: ignore[reportPrivateUsage]
        await after_run(result)
        return result

    @classmethod
    def run_sync(
        cls, starting_agent: AgentLike, input: str | list[Any] | RunState, **kwargs: Any
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
        return asyncio.run(cls.run(starting_agent, input, **kwargs))

    @classmethod
    def run_streamed(
        cls,
        starting_agent: AgentLike,
        input: str | list[Any] | RunState,
        *,
        context: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        hooks: Any = None,
        run_config: RunConfig | None = None,
        previous_response_id: str | None = None,
        auto_previous_response_id: bool = False,
        conversation_id: str | None = None,
        session: Any = None,
        error_handlers: Any = None,
    ) -> RunResultStreaming:
        """Start a run whose events arrive through ``stream_events()``; ``final_output`` is
        set once the stream is exhausted."""
        run_config = run_config or RunConfig()  # a run without one runs on the defaults
        if isinstance(input, RunState):
            driver = input.resumed_driver(
                starting_agent,
                context=context,
                max_turns=max_turns,
                hooks=hooks,
                run_config=run_config,
                streaming=True,
            )
            return RunResultStreaming(driver, driver.input_items, driver.start)
        holder: dict[str, RunDriver] = {}

        async def start() -> None:
            items = await _prepared_input(input, previous_response_id, session, run_config)
            driver = RunDriver(
                starting_agent,
                items,
                context=context,
                max_turns=max_turns,
                hooks=hooks,
                run_config=run_config,
                streaming=True,
            )
            result._driver = driver  # pyright: ignore[reportPrivateUsage]
            holder["driver"] = driver
            await driver.start()

        placeholder = RunDriver(
            starting_agent,
            _input_items(input) if not isinstance(input, list) or input else [{}],
            context=context,
            max_turns=max_turns,
            hooks=hooks,
            run_config=run_config,
            streaming=True,
        )
        result = RunResultStreaming(placeholder, input, start)
        result._session = session  # pyright: ignore[reportPrivateUsage]
        result._fresh_input = _input_items(input) if input else []  # pyright: ignore[reportPrivateUsage]
        return result
