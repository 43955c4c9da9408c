"""What every HTTP provider shares: its base class, its clients per event loop, its
timeouts, the request body's JSON and the Retry-After of a refusal."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, Literal, Protocol, TypeVar

from loopwright.models._client_pool import PooledClients, shared_client
from loopwright.models.base import ModelBase
from loopwright.models.capabilities import Capabilities
from loopwright.version import VERSION

USER_AGENT = f"loopwright/{VERSION}"


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only for an HTTP date

    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


# A provider's ``timeout`` default: 10 minutes to read, 5 s to connect (the SDKs' defaults
# too, when the SDK sends).
DEFAULT_TIMEOUT: Literal["default"] = "default"
Timeout = float | None | Literal["default"]


def timeout_arguments(timeout: Timeout) -> dict[str, Any]:
    return {} if timeout == DEFAULT_TIMEOUT else {"timeout": timeout}


def json_content(body: Mapping[str, Any]) -> bytes:
    """The request body serialised once, here.

    Handing the SDK bytes instead of a dict skips its per-request deep copy of the body
    (O(history) on every turn); our own client sends these bytes as they are.
    """
    return json_bytes(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


def json_bytes(text: str) -> bytes:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) as the bytes of a request body."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate (a model's text that arrived as half a pair, a file name that
        # is not UTF-8) has no UTF-8 form: it is sent as U+FFFD, while the history and the
        # transcript keep what was received. Otherwise every later request would fail.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()


class _Closable(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Closable)


class ClientPerLoop(Generic[ClientT]):
    """One SDK client per event loop.

    Pooled connections belong to the loop that opened them; a provider object reused
    across ``asyncio.run`` calls (``run_sync`` twice, test loops) must not reuse them.
    ``aclose()`` before a loop ends releases them cleanly.
    """

    def __init__(self, factory: Callable[[], ClientT]) -> None:
        self._factory = factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: ClientT | None = None

    def get(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._factory()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()


def client_source(
    key: Hashable, factory: Callable[[], ClientT], *, share: bool
) -> ClientPerLoop[ClientT] | PooledClients:
    """Where a provider gets its SDK client: its own (per event loop), or the process's
    shared one for ``key`` when the provider was made from a model string."""
    if share:
        return PooledClients(shared_client(key, factory))
    return ClientPerLoop(factory)


class HttpProvider(ModelBase):
    """What every HTTP provider shares: its model id as ``name`` (used for pricing and
    reports), its capabilities, and its clients — ours and the SDK's, each one per event
    loop or the process's shared one — released by ``aclose()``.

    ``created_by_loopwright`` is true for providers made from a model string: the runtime
    closes those at the end of a session, and leaves providers the user built alone.
    """

    _model: str
    _clients: ClientPerLoop[Any] | PooledClients
    _http_clients: ClientPerLoop[Any] | PooledClients
    capabilities: Capabilities
    created_by_loopwright: bool = False

    @property
    def context_window(self) -> int:
        return self.capabilities.context_window

    @property
    def supports_reasoning(self) -> bool:
        return self.capabilities.reasoning

    @property
    def name(self) -> str:
        return self._model

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._model!r})"

    async def aclose(self) -> None:
        """Close this event loop's HTTP connections (call before the loop ends)."""
        await self._http_clients.aclose()
        await self._clients.aclose()
