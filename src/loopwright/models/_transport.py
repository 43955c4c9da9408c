"""How a provider's requests travel: over our own HTTP client (``_http``) by default, through
the official SDK only where plain HTTP with an API key cannot serve.

The rule, decided once when a provider is built (:func:`own_route`): our client sends when
the provider has an API key (given, or in its environment variable) and a base URL our
client reaches. The SDK sends when

- the user handed in a client of their own (``http_client``) or asked for the SDK's own
  retries (``max_retries``);
- there is no API key: the SDK finds the other credentials (an auth token, a profile,
  workload identity);
- a proxy is set in the environment (our client does not tunnel);
- the base URL is one our client does not serve (credentials or a query in it).

Both paths yield the same server-sent events, parsed by ``_sse``; each provider builds its
own headers and maps a status and error body to a ModelError with one table of its own.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from loopwright.errors import ConfigurationError, ModelError, ModelErrorKind
from loopwright.models._http import Endpoint, Header, HttpClient, TransportError, endpoint
from loopwright.models._provider_base import (
    DEFAULT_TIMEOUT,
    ClientPerLoop,
    Timeout,
    client_source,
    timeout_arguments,
)
from loopwright.models._sse import ServerSentEvent, server_sent_events

if TYPE_CHECKING:
    from loopwright.models._client_pool import PooledClients

# Environment that sends an SDK's httpx2 through a proxy (trust_env is on in the SDKs).
_PROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@dataclass(frozen=True, slots=True)
class Route:
    """Where our client posts for one provider, and with which key."""

    base_url: str
    api_key: str
    timeout: Timeout

    def client(self) -> HttpClient:
        """A client with the provider's timeouts (a number is every phase's)."""
        if self.timeout == DEFAULT_TIMEOUT:
            return HttpClient()
        return HttpClient(connect_timeout=self.timeout, read_timeout=self.timeout)

    def endpoint(self, path: str, query: str = "") -> Endpoint:
        found = endpoint(self.base_url, path, query)
        assert found is not None  # own_route checked the base URL
        return found


@dataclass(frozen=True, slots=True)
class ProviderEnvironment:
    """A provider's environment variables (its key and its base URL), and the official
    SDK that serves what our client does not (its import name, also the extra's name)."""

    key: str
    base_url: str
    default_base_url: str
    sdk_package: str


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """The client arguments every HTTP provider takes, named as the SDKs' constructors."""

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


def own_route(env: ProviderEnvironment, options: ClientOptions) -> Route | None:
    """The route of our client for a provider built with ``options``, or None for the SDK
    (see the module's docstring for the rule)."""
    if options.http_client is not None or options.max_retries != 0:
        return None
    if any(os.environ.get(name) for name in _PROXY_ENV):
        return None
    key = options.api_key if options.api_key is not None else os.environ.get(env.key)
    if not key:
        return None
    url = options.base_url if options.base_url is not None else os.environ.get(env.base_url)
    url = url or env.default_base_url
    if endpoint(url, "/") is None:
        return None
    return Route(url, key, options.timeout)


@dataclass(frozen=True, slots=True)
class ProviderClients:
    """A provider's two client sources, each its own (one per event loop) or the process's
    shared one: the SDK's client, and ours with its route (None: the SDK sends)."""

    sdk: ClientPerLoop[Any] | PooledClients
    http: ClientPerLoop[HttpClient] | PooledClients
    route: Route | None


def provider_clients(
    provider: str,
    env: ProviderEnvironment,
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
    route = own_route(env, options)
    if route is None:
        require_sdk(env.sdk_package, provider)
    return ProviderClients(
        sdk=client_source(key, lambda: sdk_client(options), share=share),
        http=client_source(("http", *key), route.client if route else HttpClient, share=share),
        route=route,
    )


def require_sdk(package: str, provider: str) -> None:
    """Fail when the provider is built, not at its first request, when the SDK it needs
    is not installed (``make demo`` and a bare ``pip install loopwright`` bring none)."""
    try:
        found = importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules[package] is None
        found = False
    if not found:
        raise ConfigurationError(
            f"this {provider} model goes through the {package!r} package (no API key in "
            "the environment, a proxy, your own http_client or max_retries), which is not "
            f"installed; install it with: pip install 'loopwright[{package}]', or set an "
            "API key"
        )


def merged_headers(*layers: Iterable[Header]) -> list[Header]:
    """Header layers merged in order, a later layer's value replacing an earlier one's of
    the same name in any case (in its place)."""
    merged: dict[str, Header] = {}
    for layer in layers:
        for name, value in layer:
            merged[name.lower()] = (name, value)
    return list(merged.values())


def header_lines(text: str | None) -> list[Header]:
    """``Name: value`` lines (a ``*_CUSTOM_HEADERS`` variable) as headers."""
    headers: list[Header] = []
    for line in (text or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon and name.strip():
            headers.append((name.strip(), value.strip()))
    return headers


def trace_headers() -> list[Header]:
    """The current OpenTelemetry trace context (traceparent, tracestate, baggage), when the
    application uses OpenTelemetry: a request continues the trace of the span around it.
    Nothing is imported for an application that does not."""
    if "opentelemetry.propagate" not in sys.modules and "opentelemetry.trace" not in sys.modules:
        return []
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return list(carrier.items())


class ErrorTable(Protocol):
    """How a provider names itself in errors and maps a refused request."""

    api: str

    def status_error(self, status: int, headers: Mapping[str, str], body: bytes) -> ModelError:
        """The ModelError for a non-2xx response with this (decoded) body."""
        ...


def transport_error(api: str, detail: str, *, timed_out: bool, mid_stream: bool) -> ModelError:
    """A connection that failed or timed out, before a response or while it streamed."""
    if timed_out:
        return ModelError(f"{api} request timed out: {detail}", kind="timeout")
    kind: ModelErrorKind = "stream" if mid_stream else "connection"
    where = "while streaming the response" if mid_stream else "before a response"
    return ModelError(f"connection to {api} failed {where}: {detail}", kind=kind)


def _failed(errors: ErrorTable, exc: TransportError) -> ModelError:
    return transport_error(errors.api, str(exc), timed_out=exc.timed_out, mid_stream=exc.responded)


async def post_events(
    client: HttpClient,
    where: Endpoint,
    headers: list[Header],
    body: bytes,
    errors: ErrorTable,
) -> AsyncIterator[ServerSentEvent]:
    """POST ``body`` and yield the response's server-sent events; failures are raised as
    ModelErrors. After ``data: [DONE]`` the rest of the body is read (so that the
    connection is reused) and nothing more is yielded."""
    try:
        response = await client.post(where, headers, body)
    except TransportError as exc:
        raise _failed(errors, exc) from exc
    try:
        if not 200 <= response.status_code < 300:
            content = await response.read()
            raise errors.status_error(response.status_code, response.headers, content)
        chunks = response.aiter_bytes()
        async for sse in server_sent_events(chunks):
            if sse.data.startswith("[DONE]"):
                # Drained before [DONE] is handed over: its reader stops there, and a body
                # read to its end lets the connection be reused.
                async for _ in chunks:
                    pass
                yield sse
                return
            yield sse
    except TransportError as exc:
        raise _failed(errors, exc) from exc
    finally:
        await response.aclose()


async def post_json(
    client: HttpClient, where: Endpoint, headers: list[Header], body: bytes, errors: ErrorTable
) -> dict[str, Any]:
    """POST ``body`` and read the response's JSON object; failures as ModelErrors."""
    try:
        response = await client.post(where, headers, body)
        try:
            content = await response.read()
        finally:
            await response.aclose()
    except TransportError as exc:
        raise _failed(errors, exc) from exc
    if not 200 <= response.status_code < 300:
        raise errors.status_error(response.status_code, response.headers, content)
    try:
        parsed = json.loads(content)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise ModelError(f"{errors.api} answered with no JSON object: {content[:200]!r}")
    return parsed


async def sdk_events(
    sdk: Any, start: Callable[[], Awaitable[Any]], errors: ErrorTable
) -> AsyncIterator[ServerSentEvent]:
    """The server-sent events of a request the SDK sends (``start`` returns its stream),
    read from the SDK's response with our parser; its failures mapped by ``errors``."""
    try:
        created = await start()
    except Exception as exc:
        raise sdk_error(sdk, exc, errors, mid_stream=False) from exc
    try:
        async for sse in server_sent_events(created.response.aiter_bytes()):
            yield sse
            if sse.data.startswith("[DONE]"):
                return
    except ModelError:
        raise
    except Exception as exc:
        raise sdk_error(sdk, exc, errors, mid_stream=True) from exc
    finally:
        await created.close()


def sdk_error(sdk: Any, exc: BaseException, errors: ErrorTable, *, mid_stream: bool) -> ModelError:
    """An exception of the SDK path (the SDK's own or httpx2's) as a ModelError, refused
    requests through the provider's table."""
    if isinstance(exc, ModelError):
        return exc
    import httpx2

    if isinstance(exc, sdk.APIStatusError):
        refused: Any = exc  # the SDK's class, found on the module given
        response = refused.response
        return errors.status_error(refused.status_code, response.headers, response.content)
    if isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException):
        return transport_error(errors.api, str(exc), timed_out=True, mid_stream=mid_stream)
    if isinstance(exc, sdk.APIConnectionError | httpx2.TransportError):
        return transport_error(errors.api, repr(exc), timed_out=False, mid_stream=mid_stream)
    return ModelError(f"{errors.api} call failed: {exc!r}", kind="other")


def error_object(body: bytes) -> tuple[dict[str, Any], str]:
    """An error body's ``error`` object (or the whole JSON object) and, when it is not
    JSON, its text."""
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return {}, body.decode("utf-8", "replace").strip()[:500]
    inner = parsed.get("error")
    return (inner if isinstance(inner, dict) else parsed), ""
