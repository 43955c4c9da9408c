"""The control channel's CLI side: requests the host sends to the SDK, and their answers.

Every request gets a future that is always resolved: by the SDK's ``control_response``,
by stdin closing, or by the caller giving up — then the SDK is told with a
``control_cancel_request`` so it stops waiting for its user (an interrupted turn).
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from typing import Any

from loopwright.cli.host.wire import LineWriter


class ControlError(Exception):
    """The SDK answered a control request with an error (its text), or cannot answer."""


class ControlChannel:
    def __init__(self, writer: LineWriter) -> None:
        self.writer = writer
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._numbers = itertools.count(1)
        self._closed: str | None = None

    async def request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send ``request`` (with its ``subtype``) and return the SDK's response object."""
        if self._closed is not None:
            raise ControlError(self._closed)
        request_id = f"lw_{next(self._numbers)}_{uuid.uuid4().hex[:8]}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.writer.write({"type": "control_request", "request_id": request_id, "request": request})
        try:
            return await future
        except asyncio.CancelledError:
            # Cancelling the waiting task cancels the future too: not answered = cancelled.
            if future.cancelled() or not future.done():
                self.writer.write({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def receive(self, message: dict[str, Any]) -> None:
        """A ``control_response`` from the SDK: resolve the request it answers."""
        response = message.get("response")
        if not isinstance(response, dict):
            return
        future = self._pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return  # an answer to a request that was cancelled meanwhile
        if response.get("subtype") == "error":
            future.set_exception(ControlError(str(response.get("error") or "error")))
        else:
            body = response.get("response")
            future.set_result(body if isinstance(body, dict) else {})

    def close(self, reason: str) -> None:
        """stdin ended: nobody will answer the requests still waiting."""
        self._closed = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ControlError(reason))
