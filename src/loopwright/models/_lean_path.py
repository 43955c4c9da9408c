"""The lean request path both SDK families share: when it applies, how a request is sent,
and how its failures become the SDK's own exceptions.

A provider decides once, when it is built, whether its configuration is one the SDK would
send as a plain request (:func:`lean_route`); each request then checks the process-wide
conditions (``lean_transport_ok``). Anything the lean path does not reproduce — an
``http_client``, SDK-side retries, credentials other than a key,
custom-header environment variables — keeps the SDK path.

Failures are turned into exactly what the SDK would have raised (its status errors, its
``APIConnectionError``/``APITimeoutError``, httpx2's read errors mid-stream), importing the
SDK in a worker thread first, so that error mapping, messages and retries stay the SDK
path's.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from loopwright.errors import ModelError
from loopwright.models._lean_http import Header, LeanClient, LeanResponse, Origin, TransportError
from loopwright.models._sdk_headers import origin_and_target, wire_head
from loopwright.models._sse import Event, server_sent_events
from loopwright.models._wire import (
    SDK_DEFAULT_TIMEOUT,
    ClientPerLoop,
    Timeout,
    client_source,
    timeout_arguments,
)

if TYPE_CHECKING:
    from loopwright.models._client_pool import PooledClients


@dataclass(frozen=True)
class LeanRoute:
    """Where the lean path posts for one provider, and with which key."""

    base_url: str
    api_key: str
    custom_headers: tuple[Header, ...]
    timeout: Timeout

    @property
    def read_timeout_header(self) -> str | None:
        """The SDK's x-stainless-read-timeout: its default's 600, a number as given."""
        if self.timeout == SDK_DEFAULT_TIMEOUT:
            return "600"
        return None if self.timeout is None else str(self.timeout)

    def client(self) -> LeanClient:
        """A client with the SDK's timeouts (a number is every phase's, as in httpx2)."""
        if self.timeout == SDK_DEFAULT_TIMEOUT:
            return LeanClient()
        return LeanClient(connect_timeout=self.timeout, read_timeout=self.timeout)


@dataclass(frozen=True)
class SDKEnvironment:
    """One SDK's environment variables: its key, its base URL, and those that make the SDK
    send something else (extra headers, other credentials)."""

    key: str
    base_url: str
    default_base_url: str
    blockers: tuple[str, ...]


@dataclass(frozen=True)
class ClientOptions:
    """The client arguments every SDK provider takes, as the SDKs' constructors do."""

    api_key: str | None
    base_url: str | None
    timeout: Timeout
    max_retries: int
    default_headers: Mapping[str, str] | None
    http_client: Any | None

    def sdk_arguments(self) -> dict[str, Any]:
        return {
            "api_key": self.api_key,
            "base_url": self.base_url,
            "max_retries": self.max_retries,
            "default_headers": self.default_headers,
            "http_client": self.http_client,
            **timeout_arguments(self.timeout),
        }


def lean_route(env: SDKEnvironment, options: ClientOptions) -> LeanRoute | None:
    """The route for a provider built with these options, or None for the SDK path."""
    if options.http_client is not None or options.max_retries != 0:
        return None
    if any(os.environ.get(name) is not None for name in env.blockers):
        return None
    key = options.api_key if options.api_key is not None else os.environ.get(env.key)
    if not key:
        return None
    url = options.base_url if options.base_url is not None else os.environ.get(env.base_url)
    url = url or env.default_base_url
    if origin_and_target(url, "/") is None:
        return None
    headers = tuple((options.default_headers or {}).items())
    return LeanRoute(url, key, headers, options.timeout)


@dataclass(frozen=True)
class ProviderClients:
    """A provider's two client sources, each its own (one per event loop) or the
    process's shared one: the SDK's client, and the lean path's with its route."""

    sdk: ClientPerLoop[Any] | PooledClients
    lean: ClientPerLoop[LeanClient] | PooledClients
    route: LeanRoute | None


def provider_clients(
    provider: str,
    env: SDKEnvironment,
    sdk_client: Callable[[ClientOptions], Any],
    options: ClientOptions,
    *,
    share: bool,
) -> ProviderClients:
    """The client sources of a provider built with ``options``; ``share`` (a provider made
    from a model string) draws both from the process's pool, unless it has its own
    ``http_client``."""
    headers = tuple(sorted((options.default_headers or {}).items()))
    key = (provider, options.api_key, options.base_url, options.timeout, options.max_retries)
    key = (*key, headers)
    share = share and options.http_client is None
    route = lean_route(env, options)
    return ProviderClients(
        sdk=client_source(key, lambda: sdk_client(options), share=share),
        lean=client_source(("lean", *key), route.client if route else LeanClient, share=share),
        route=route,
    )


@dataclass(frozen=True)
class Target:
    """One request's destination: the connection's origin, the request target, the URL."""

    origin: Origin
    target: str
    url: str


def target_of(route: LeanRoute, path: str, query: str = "") -> Target:
    found = origin_and_target(route.base_url, path, query)
    assert found is not None  # lean_route checked the base URL
    origin, target = found
    return Target(origin, target, f"{origin.scheme}://{origin.netloc}{target}")


async def send(
    client: LeanClient, where: Target, sdk_headers: list[Header], body: bytes
) -> LeanResponse:
    """POST ``body`` with the SDK's headers; raises TransportError before a response."""
    head = wire_head(where.origin, sdk_headers, len(body))
    return await client.post(where.origin, where.target, head, body)


class SDKErrors(Protocol):
    """How a provider's SDK reports failures, and how the provider maps them."""

    sdk: str  # the SDK's module, imported (in a worker thread) when a failure needs it

    def status_error(self, response: Any) -> BaseException:
        """The SDK's exception for a non-2xx httpx2 response."""
        ...

    def is_error_event(self, sse: Event) -> bool:
        """Whether the SDK's stream raises on this event (the SDK need not be imported)."""
        ...

    def event_error(self, sse: Event, response: Any) -> BaseException:
        """The SDK's exception for such an event of a stream whose response is given."""
        ...

    def model_error(self, exc: BaseException, *, mid_stream: bool) -> ModelError: ...


async def lean_events(
    client: LeanClient,
    where: Target,
    sdk_headers: list[Header],
    body: bytes,
    errors: SDKErrors,
) -> AsyncIterator[Event]:
    """POST ``body`` and yield the response's server-sent events; every failure is raised
    as the ModelError of the SDK's exception for it. After ``data: [DONE]`` the rest of
    the body is read (so that the connection is reused) and nothing more is yielded."""
    try:
        response = await send(client, where, sdk_headers, body)
    except TransportError as exc:
        error = request_failure(await import_sdk(errors.sdk), exc, where.url)
        raise errors.model_error(error, mid_stream=False) from exc
    status, headers = response.status_code, response.headers
    try:
        if not 200 <= status < 300:
            content = await response.read()
            await import_sdk(errors.sdk)
            failed = errors.status_error(sdk_response(status, headers, content, where.url))
            raise errors.model_error(failed, mid_stream=False) from failed
        chunks = response.aiter_bytes()
        async for sse in server_sent_events(chunks):
            if errors.is_error_event(sse):
                await import_sdk(errors.sdk)
                failed = errors.event_error(sse, sdk_response(status, headers, b"", where.url))
                raise errors.model_error(failed, mid_stream=True) from failed
            if sse.data.startswith("[DONE]"):
                # Drained before [DONE] is handed over: its reader stops there, and a body
                # read to its end lets the connection be reused.
                async for _ in chunks:
                    pass
                yield sse
                return
            yield sse
    except ModelError:
        raise
    except TransportError as exc:
        await import_sdk(errors.sdk)
        raise errors.model_error(stream_failure(exc), mid_stream=True) from exc
    except Exception as exc:
        raise errors.model_error(exc, mid_stream=True) from exc
    finally:
        await response.aclose()


async def import_sdk(name: str) -> Any:
    """The SDK module, imported in a worker thread the first time (an error path must not
    stall the event loop for the second the import takes)."""
    return await asyncio.to_thread(importlib.import_module, name)


def sdk_response(status: int, headers: list[Header], content: bytes, url: str) -> Any:
    """An httpx2 response, as the SDK's error constructors expect: ``content`` is the
    decoded body, so the headers that describe the body on the wire are left out."""
    import httpx2

    framing = ("content-encoding", "content-length", "transfer-encoding")
    kept = [(name, value) for name, value in headers if name.lower() not in framing]
    request = httpx2.Request("POST", url)
    return httpx2.Response(status, headers=kept, content=content, request=request)


def request_failure(sdk: Any, error: TransportError, url: str) -> Exception:
    """What the SDK raises when the request fails before a response."""
    import httpx2

    request = httpx2.Request("POST", url)
    if error.timed_out:
        return sdk.APITimeoutError(request=request)
    return sdk.APIConnectionError(request=request)


def stream_failure(error: TransportError) -> Exception:
    """What httpx2 raises (the SDK lets it through) when the body stops mid-way."""
    import httpx2

    if error.timed_out:
        return httpx2.ReadTimeout(str(error))
    return httpx2.RemoteProtocolError(str(error))
