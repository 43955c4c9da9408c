"""Claude through the official ``anthropic`` SDK: streaming Messages API → ModelEvents.

Retries are ours (``retry.py``), so the SDK client is built with ``max_retries=0``.
Requests with a task budget go to the beta endpoint with the beta flag it needs; all
others use the stable endpoint. Both stream the same event shapes.

The SDK is not imported to send a request the SDK would send as plain HTTP: that request
goes out through the lean path (``_lean_path``) with the SDK's exact bytes, and the SDK is
imported only for what needs it — other configurations, token counting, and turning a
failure into the SDK's exception (see ``_lean_path``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.models._anthropic_events import Assembly, ErrorEvent, stream_item
from loopwright.models._anthropic_settings import check_settings
from loopwright.models._anthropic_wire import PROVIDER, build_body, count_tokens_body
from loopwright.models._lean_path import (
    ClientOptions,
    SDKEnvironment,
    lean_events,
    provider_clients,
    target_of,
)
from loopwright.models._sdk_headers import anthropic_headers, lean_transport_ok
from loopwright.models._sse import Event
from loopwright.models._wire import (
    SDK_DEFAULT_TIMEOUT,
    SDKProvider,
    Timeout,
    json_content,
    retry_after_seconds,
)
from loopwright.models.base import ModelEvent, ModelRequest
from loopwright.models.capabilities import Capabilities, capabilities_for
from loopwright.models.overflow import is_context_overflow
from loopwright.models.settings import ModelSettings, ServerTool

if TYPE_CHECKING:
    import anthropic
    import httpx2


_ENV = SDKEnvironment(
    key="ANTHROPIC_API_KEY",
    base_url="ANTHROPIC_BASE_URL",
    default_base_url="https://api.anthropic.com",
    blockers=("ANTHROPIC_CUSTOM_HEADERS",),
)

CONTEXT_1M_BETA = "context-1m-2025-08-07"


class AnthropicModel(SDKProvider):
    """A Claude model. ``name`` is the model id (used for pricing)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: Timeout = SDK_DEFAULT_TIMEOUT,
        max_retries: int = 0,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx2.AsyncClient | None = None,
        context_window: int | None = None,
        capabilities: Capabilities | None = None,
        share_client: bool = False,
    ) -> None:
        self._model = model
        # "claude-…[1m]" (as in Claude Code) asks for the 1M-token window through its beta.
        self._wire_model = model.removesuffix("[1m]")
        self._betas = [CONTEXT_1M_BETA] if model.endswith("[1m]") else []
        self.capabilities = capabilities or capabilities_for(model)
        if context_window is not None:
            self.capabilities = dataclasses.replace(
                self.capabilities, context_window=context_window
            )

        options = ClientOptions(
            api_key, base_url, timeout, max_retries, default_headers, http_client
        )
        clients = provider_clients(PROVIDER, _ENV, _sdk_client, options, share=share_client)
        self._clients, self._lean_clients, self._lean = clients.sdk, clients.lean, clients.route
        self.created_by_loopwright = share_client

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError) what the Messages API cannot carry, before a request."""
        check_settings(settings, server_tools)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        limit = self.capabilities.max_output_tokens
        body, betas = build_body(request, self._wire_model, output_limit=limit)
        betas += self._betas
        extra_headers = request.settings.extra_headers if request.settings else {}
        assembly = Assembly(self._model)
        async for sse in self._server_events(body, betas, extra_headers):
            try:
                item = stream_item(sse)
            except ValueError as exc:
                raise map_error(exc, mid_stream=True) from exc
            if isinstance(item, dict):
                delta = assembly.handle(item)
                if delta is not None:
                    yield delta
        yield assembly.response()

    def _server_events(
        self, body: dict[str, Any], betas: list[str], extra_headers: Mapping[str, str]
    ) -> AsyncIterator[Event]:
        """The response's server-sent events by the lean path when it applies, else by
        the SDK; an ``error`` event is raised, as the SDK's stream does."""
        route = self._lean
        if route is None or not lean_transport_ok():
            return self._sdk_events(body, betas, extra_headers)
        headers = dict(extra_headers)
        if betas:
            headers["anthropic-beta"] = ",".join(betas)
        sdk_headers = anthropic_headers(
            api_key=route.api_key,
            custom=dict(route.custom_headers),
            extra=headers,
            read_timeout=route.read_timeout_header,
        )
        if sdk_headers is None:  # an SDK this code cannot read: let it send
            return self._sdk_events(body, betas, extra_headers)
        where = target_of(route, "/v1/messages", "beta=true" if betas else "")
        client = self._lean_clients.get()
        return lean_events(client, where, sdk_headers, json_content(body), self)

    async def _sdk_events(
        self, body: dict[str, Any], betas: list[str], extra_headers: Mapping[str, str]
    ) -> AsyncIterator[Event]:
        client = self._clients.get()
        try:
            created = await _post_messages(client, body, betas, extra_headers)
        except Exception as exc:
            raise map_error(exc, mid_stream=False) from exc
        try:
            # Read as the JSON the API sent: the same events whichever path carried them.
            async for sse in created._iter_events():
                if self.is_error_event(sse):
                    raise self.event_error(sse, created.response)
                yield sse
        except ModelError:
            raise
        except Exception as exc:
            raise map_error(exc, mid_stream=True) from exc
        finally:
            await created.close()

    # How the SDK reports failures (see _lean_path.SDKErrors).
    sdk = "anthropic"

    def status_error(self, response: Any) -> BaseException:
        return self._clients.get()._make_status_error_from_response(response)

    def is_error_event(self, sse: Event) -> bool:
        return sse.event == "error"

    def event_error(self, sse: Event, response: Any) -> BaseException:
        item = stream_item(sse)
        assert isinstance(item, ErrorEvent)
        client = self._clients.get()
        return client._make_status_error(item.message, body=item.body, response=response)

    def model_error(self, exc: BaseException, *, mid_stream: bool) -> ModelError:
        return map_error(exc, mid_stream=mid_stream)

    async def aclose(self) -> None:
        """Close this event loop's HTTP connections (call before the loop ends)."""
        await self._lean_clients.aclose()
        await self._clients.aclose()

    async def count_tokens(self, request: ModelRequest) -> int:
        client = self._clients.get()
        try:
            counted = await client.messages.count_tokens(
                **count_tokens_body(request, self._wire_model)
            )
        except Exception as exc:
            raise map_error(exc, mid_stream=False) from exc
        return counted.input_tokens


def _sdk_client(options: ClientOptions) -> anthropic.AsyncAnthropic:
    import anthropic

    return anthropic.AsyncAnthropic(**options.sdk_arguments())


async def _post_messages(
    client: anthropic.AsyncAnthropic,
    body: dict[str, Any],
    betas: list[str],
    extra_headers: Mapping[str, str],
) -> Any:
    """POST the prepared body through the SDK client (auth, errors, SSE decoding).

    ``messages.create(**body)`` would first run the body through the SDK's recursive
    TypedDict transform and then deep-copy it: O(history) with a large constant on every
    turn (the transform alone was ~0.6 s per call 200 turns into a Responses session).
    Our body is plain JSON that needs neither; the tests validate it against the same
    TypedDicts instead.
    """
    import anthropic
    from anthropic.lib._tracing._api_call import messages_create_request_attributes
    from anthropic.types import Message, RawMessageStreamEvent
    from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent

    # The SDK's own OpenTelemetry span for messages.create (and the traceparent header it
    # sends), which a plain post() would not open. Internal request options of the SDK, as
    # its own create() passes them; tests compare our requests with create()'s.
    options: dict[str, Any] = {
        "span_name": "anthropic.messages.create",
        "span_route": "/v1/messages",
        "span_attributes": messages_create_request_attributes,
    }
    if extra_headers:
        options["headers"] = dict(extra_headers)
    if betas:
        options["headers"] = {**extra_headers, "anthropic-beta": ",".join(betas)}
        options["params"] = {"beta": "true"}
        return await client.post(
            "/v1/messages",
            content=json_content(body),
            cast_to=BetaMessage,
            stream=True,
            stream_cls=anthropic.AsyncStream[BetaRawMessageStreamEvent],
            options=cast(anthropic.RequestOptions, options),
        )
    return await client.post(
        "/v1/messages",
        content=json_content(body),
        cast_to=Message,
        stream=True,
        stream_cls=anthropic.AsyncStream[RawMessageStreamEvent],
        options=cast(anthropic.RequestOptions, options),
    )


def map_error(exc: BaseException, *, mid_stream: bool) -> ModelError:
    """An SDK or transport exception as a ModelError with the kind retry.py acts on."""
    if isinstance(exc, ModelError):
        return exc
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return ModelError(f"Anthropic request timed out: {exc}", kind="timeout")
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        kind: ModelErrorKind = "stream" if mid_stream else "connection"
        where = "while streaming the response" if mid_stream else "before a response"
        return ModelError(f"connection to Anthropic failed {where}: {exc!r}", kind=kind)
    return ModelError(f"Anthropic call failed: {exc!r}", kind="other")


_STREAM_ERROR_KINDS: dict[str, ModelErrorKind] = {
    "overloaded_error": "overloaded",
    "rate_limit_error": "rate_limit",
    "timeout_error": "timeout",
    "api_error": "stream",
    "invalid_request_error": "invalid_request",
    "request_too_large": "invalid_request",
    "authentication_error": "authentication",
    "permission_error": "authentication",
    "billing_error": "other",
    "not_found_error": "invalid_request",
}

_HINTS: dict[str, str] = {
    "authentication": " — check ANTHROPIC_API_KEY (or the credentials for ANTHROPIC_BASE_URL)",
    "context_window_exceeded": " — the conversation must be compacted to fit",
}


def _status_error(exc: anthropic.APIStatusError) -> ModelError:
    status = exc.status_code
    error_type = exc.type or ""
    message = exc.api_message or str(exc)
    retry_after = retry_after_seconds(exc.response.headers)
    kind: ModelErrorKind
    if status < 400:
        # An ``error`` SSE event after a 200: the SDK reports the stream's status code, so
        # the error type is all there is to go by. Only transient types are retried: a
        # request the API refused mid-stream would be refused again.
        kind = _STREAM_ERROR_KINDS.get(error_type, "stream")
        if kind == "invalid_request" and is_context_overflow(message):
            kind = "context_window_exceeded"
        hint = _HINTS.get(kind, "")
        return ModelError(f"Anthropic stream error ({error_type}): {message}{hint}", kind=kind)
    if status == 429:
        kind = "rate_limit"
    elif status == 529 or error_type == "overloaded_error":
        kind = "overloaded"
    elif status == 408:
        kind = "timeout"
    elif status == 409 or status >= 500:
        kind = "server"
    elif status in (401, 403):
        kind = "authentication"
    elif status in (400, 413) and is_context_overflow(message):
        kind = "context_window_exceeded"
    elif status in (400, 404, 413, 422):
        kind = "invalid_request"
    else:
        kind = "other"
    hint = _HINTS.get(kind, "")
    return ModelError(
        f"Anthropic API error {status} ({error_type or 'unknown'}): {message}{hint}",
        kind=kind,
        status_code=status,
        retry_after=retry_after,
    )
