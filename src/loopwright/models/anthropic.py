"""Claude through the Anthropic Messages API, streaming → ModelEvents.

Retries are ours (``retry.py``), so an SDK client is built with ``max_retries=0``.
Requests with a task budget go to the beta endpoint with the beta flag it needs; all
others use the stable endpoint. Both stream the same event shapes.

A provider with an API key sends through our own HTTP client with our own headers and
error table (``_anthropic_http``); the ``anthropic`` SDK is imported only where plain HTTP
cannot serve (see ``_transport`` for the rule): a client of the user's, other
credentials, a proxy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from loopwright.errors import ModelError
from loopwright.messages import AssistantMessage, UserMessage
from loopwright.models._anthropic_events import Assembly, ErrorEvent, stream_item
from loopwright.models._anthropic_http import AnthropicErrors, request_headers
from loopwright.models._anthropic_settings import check_settings
from loopwright.models._anthropic_wire import (
    PROVIDER,
    build_body,
    count_tokens_body,
    marked_latest,
    wire_message,
)
from loopwright.models._provider_base import (
    DEFAULT_TIMEOUT,
    HttpProvider,
    Timeout,
    WireCache,
    json_body,
    json_bytes,
    json_content,
    to_json,
)
from loopwright.models._sse import ServerSentEvent
from loopwright.models._transport import (
    ClientOptions,
    ProviderEnvironment,
    post_events,
    post_json,
    provider_clients,
    sdk_error,
    sdk_events,
)
from loopwright.models.base import ModelEvent, ModelRequest
from loopwright.models.capabilities import Capabilities, capabilities_for
from loopwright.models.settings import ModelSettings, ServerTool

if TYPE_CHECKING:
    import anthropic
    import httpx2


_ENV = ProviderEnvironment(
    key="ANTHROPIC_API_KEY",
    base_url="ANTHROPIC_BASE_URL",
    default_base_url="https://api.anthropic.com",
    sdk_package="anthropic",
)
_ERRORS = AnthropicErrors()
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)

CONTEXT_1M_BETA = "context-1m-2025-08-07"


class AnthropicModel(HttpProvider):
    """A Claude model. ``name`` is the model id (used for pricing)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: Timeout = DEFAULT_TIMEOUT,
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
        self._clients, self._http_clients, self._route = clients.sdk, clients.http, clients.route
        self._custom_headers = dict(default_headers or {})
        self.created_by_loopwright = share_client
        self._wire: WireCache[tuple[dict[str, Any], str] | None] = WireCache(_wire_json)

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError) what the Messages API cannot carry, before a request."""
        check_settings(settings, server_tools)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        content, betas = self._request_body(request)
        betas += self._betas
        extra_headers = request.settings.extra_headers if request.settings else {}
        assembly = Assembly(self._model)
        async for sse in self._server_events(content, betas, extra_headers):
            try:
                item = stream_item(sse)
            except ValueError as exc:
                raise ModelError(f"Anthropic sent an unreadable event: {exc!r}") from exc
            if isinstance(item, ErrorEvent):
                raise _ERRORS.event_error(item.body)
            if isinstance(item, dict):
                delta = assembly.handle(item)
                if delta is not None:
                    yield delta
        yield assembly.response()

    def _request_body(self, request: ModelRequest) -> tuple[bytes, list[str]]:
        """The body's bytes (``json_content`` of ``build_body``) and its beta flags; the
        history's messages converted and encoded once, in earlier requests."""
        converted = list(filter(None, self._wire.convert_all(request.messages)))
        messages = list(map(_FIRST, converted))
        texts = list(map(_SECOND, converted))
        if messages and (latest := marked_latest(messages[-1])) is not messages[-1]:
            messages[-1], texts[-1] = latest, to_json(latest)
        limit = self.capabilities.max_output_tokens
        body, betas = build_body(request, self._wire_model, output_limit=limit, messages=messages)
        text = json_body(body, "messages", messages, "[" + ",".join(texts) + "]")
        return json_bytes(text), betas

    async def aclose(self) -> None:
        self._wire.clear()
        await super().aclose()

    def _server_events(
        self, content: bytes, betas: list[str], extra_headers: Mapping[str, str]
    ) -> AsyncIterator[ServerSentEvent]:
        """The response's server-sent events, by our client or (see ``_transport``) the SDK."""
        route = self._route
        if route is None:
            return sdk_events(
                _sdk(), lambda: self._sdk_post(content, betas, extra_headers), _ERRORS
            )
        headers = request_headers(
            route.api_key, custom=self._custom_headers, extra=extra_headers, betas=betas
        )
        where = route.endpoint("/v1/messages", "beta=true" if betas else "")
        client = self._http_clients.get()
        return post_events(client, where, headers, content, _ERRORS)

    async def _sdk_post(
        self, content: bytes, betas: list[str], extra_headers: Mapping[str, str]
    ) -> Any:
        """POST the prepared body through the SDK client (its auth and transport).

        ``messages.create(**body)`` would first run the body through the SDK's recursive
        TypedDict transform and then deep-copy it: O(history) with a large constant on
        every turn. Our body is plain JSON that needs neither; the tests validate it
        against the same TypedDicts instead.
        """
        import anthropic

        client: anthropic.AsyncAnthropic = self._clients.get()
        options: dict[str, Any] = {"headers": dict(extra_headers)}
        if betas:
            options["headers"]["anthropic-beta"] = ",".join(betas)
            options["params"] = {"beta": "true"}
        return await client.post(
            "/v1/messages",
            content=content,
            cast_to=object,
            stream=True,
            stream_cls=anthropic.AsyncStream[object],
            options=cast(anthropic.RequestOptions, options),
        )

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` by the Messages token-counting endpoint."""
        body = count_tokens_body(request, self._wire_model)
        route = self._route
        if route is not None:
            custom = self._custom_headers
            headers = request_headers(route.api_key, custom=custom, extra={}, betas=[])
            where = route.endpoint("/v1/messages/count_tokens")
            client = self._http_clients.get()
            counted = await post_json(client, where, headers, json_content(body), _ERRORS)
            tokens = counted.get("input_tokens")
            if not isinstance(tokens, int):
                raise ModelError(f"Anthropic counted no input_tokens: {counted!r}")
            return tokens
        sdk_client = self._clients.get()
        try:
            result = await sdk_client.messages.count_tokens(**body)
        except Exception as exc:
            raise sdk_error(_sdk(), exc, _ERRORS, mid_stream=False) from exc
        return result.input_tokens


def _wire_json(message: AssistantMessage | UserMessage) -> tuple[dict[str, Any], str] | None:
    wire = wire_message(message)
    return None if wire is None else (wire, to_json(wire))


def _sdk() -> Any:
    import anthropic

    return anthropic


def _sdk_client(options: ClientOptions) -> anthropic.AsyncAnthropic:
    import anthropic

    return anthropic.AsyncAnthropic(**options.sdk_arguments())
