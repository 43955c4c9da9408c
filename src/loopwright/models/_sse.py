"""Server-sent events from a byte stream, decoded as the SDKs' ``SSEDecoder`` does.

Events are split on blank lines (``\\n\\n``, ``\\r\\r`` or ``\\r\\n\\r\\n``); within one,
``event:``, ``data:`` (joined by newlines), ``id:`` and ``retry:`` fields; comments and
unknown fields are ignored.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol


class Event(Protocol):
    """A server-sent event: what the readers of events need of :class:`ServerSentEvent`."""

    @property
    def event(self) -> str | None: ...

    @property
    def data(self) -> str: ...


@dataclass(frozen=True)
class ServerSentEvent:
    event: str | None
    data: str


async def server_sent_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[ServerSentEvent]:
    decoder = _Decoder()
    async for block in _blocks(chunks):
        for raw_line in block.splitlines():
            sse = decoder.decode(raw_line.decode("utf-8"))
            if sse is not None:
                yield sse


async def _blocks(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    data = b""
    async for chunk in chunks:
        for line in chunk.splitlines(keepends=True):
            data += line
            if data.endswith((b"\r\r", b"\n\n", b"\r\n\r\n")):
                yield data
                data = b""
    if data:
        yield data


class _Decoder:
    def __init__(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []
        self._last_id = ""
        self._has_retry = False

    def decode(self, line: str) -> ServerSentEvent | None:
        if not line:
            if not (self._event or self._data or self._last_id or self._has_retry):
                return None
            sse = ServerSentEvent(self._event, "\n".join(self._data))
            self._event, self._data, self._has_retry = None, [], False
            return sse
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            # As per the spec (and the SDKs), the last event id is never reset.
            self._last_id = value
        elif name == "retry" and _is_int(value):
            self._has_retry = True
        return None


def _is_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True
