"""``responses_websocket_session()``: that SDK streams Responses over a websocket inside it.
loopwright talks to providers over its own transport, so the session simply runs the
Runner; the code written for it works unchanged."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from loopwright.compat.openai_agents._impl.runner import Runner


class ResponsesWebSocketSession:
    def __init__(self, **defaults: Any) -> None:
        self._defaults = defaults

    async def run(self, starting_agent: Any, input: Any, **kwargs: Any) -> Any:
        return await Runner.run(starting_agent, input, **{**self._defaults, **kwargs})

    def run_streamed(self, starting_agent: Any, input: Any, **kwargs: Any) -> Any:
        return Runner.run_streamed(starting_agent, input, **{**self._defaults, **kwargs})


@asynccontextmanager
async def responses_websocket_session(**kwargs: Any) -> AsyncGenerator[ResponsesWebSocketSession]:
    yield ResponsesWebSocketSession()
