"""A print-mode run stopped by a signal ends like an interrupted one, not mid-air.

SIGTERM (``kill``, ``timeout``, a CI cancel, a container stop), SIGHUP and SIGINT (Ctrl-C)
interrupt the session: the loop closes the open tool calls in the transcript and ends with
an ``interrupted`` ResultMessage, which stream-json and json output print last as always;
the session then closes, and every process group it started gets SIGTERM, then SIGKILL.
The exit code says which signal stopped the run (128 + its number: 143 for SIGTERM, 130
for SIGINT, 129 for SIGHUP). A second signal while stopping ends the process at once
(children are still killed first).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable

from loopwright import processes
from loopwright.client import open_session
from loopwright.loop.run import agent_loop
from loopwright.messages import Message, ResultMessage, UserMessage
from loopwright.options import Options
from loopwright.session.extensions import MCP_RESOURCE

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# A second signal does not wait for the children's grace period.
HURRIED_GRACE_SECONDS = 0.5


class Stopping:
    """Turns the stop signals into one call of ``on_stop`` while installed."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def exit_code(self) -> int | None:
        return None if self.received is None else 128 + self.received

    def install(self, on_stop: Callable[[], None]) -> None:
        self._loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            self._loop.add_signal_handler(signum, self._received, signum, on_stop)

    def remove(self) -> None:
        if self._loop is None:
            return
        for signum in STOP_SIGNALS:
            self._loop.remove_signal_handler(signum)
        self._loop = None

    def _received(self, signum: int, on_stop: Callable[[], None]) -> None:
        if self.received is not None:
            processes.end_all(HURRIED_GRACE_SECONDS)
            os._exit(128 + signum)  # asked twice: no more waiting for a clean end
        self.received = signum
        on_stop()


async def stoppable_run(
    prompt: str, options: Options, stopping: Stopping
) -> AsyncIterator[Message]:
    """The messages of one prompt, as ``query`` yields them, with the stop signals
    interrupting the session while it runs."""
    session = await open_session(options)
    stopping.install(session.interrupt)
    try:
        user_message = UserMessage(prompt)
        if MCP_RESOURCE in session.state.resources:
            # As query() does: /mcp__server__prompt commands and @server:uri mentions.
            from loopwright.mcp.live import prepare_prompt

            user_message = await prepare_prompt(session, user_message)
        async for message in agent_loop(session, user_message):
            if isinstance(message, ResultMessage):
                await session.stop_writing()  # on record before anything is printed
            yield message
    finally:
        try:
            await session.aclose()
        finally:
            stopping.remove()
            if stopping.received is not None:
                processes.end_all()  # what the session's tools left behind goes too
