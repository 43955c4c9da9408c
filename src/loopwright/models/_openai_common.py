"""What both OpenAI APIs share: the provider's clients and how a request is streamed (by
our client, or the SDK where plain HTTP cannot serve: see ``_transport``), our headers and
error table, usage."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.messages import Usage
from loopwright.models._http import Header
from loopwright.models._provider_base import (
    DEFAULT_TIMEOUT,
    USER_AGENT,
    HttpProvider,
    Timeout,
    json_content,
    retry_after_seconds,
)
from loopwright.models._sse import ServerSentEvent
from loopwright.models._transport import (
    ClientOptions,
    ProviderEnvironment,
    error_object,
    merged_headers,
    post_events,
    post_json,
    provider_clients,
    sdk_error,
    sdk_events,
    trace_headers,
)
from loopwright.models.capabilities import Capabilities, capabilities_for
from loopwright.models.overflow import is_context_overflow

if TYPE_CHECKING:
    import httpx2
    import openai


PROVIDER = "openai"
_ENV = ProviderEnvironment(
    key="OPENAI_API_KEY",
    base_url="OPENAI_BASE_URL",
    default_base_url="https://api.openai.com/v1",
    sdk_package="openai",
)
# Sent as OpenAI-Organization / OpenAI-Project when set (as the SDK reads them too).
_ORGANIZATION_ENV = "OPENAI_ORG_ID"
_PROJECT_ENV = "OPENAI_PROJECT_ID"


def request_headers(
    api_key: str, *, custom: Mapping[str, str], extra: Mapping[str, str]
) -> list[Header]:
    """The headers of a request to either API: ours (bearer auth, JSON, the account's
    organization and project when set), then the client's ``custom`` ones, then the
    request's ``extra`` ones."""
    ours: list[Header] = [
        ("accept", "application/json"),
        ("accept-encoding", "gzip, deflate"),
        ("content-type", "application/json"),
        ("user-agent", USER_AGENT),
        ("authorization", f"Bearer {api_key}"),
    ]
    if organization := os.environ.get(_ORGANIZATION_ENV):
        ours.append(("openai-organization", organization))
    if project := os.environ.get(_PROJECT_ENV):
        ours.append(("openai-project", project))
    return merged_headers(ours, custom.items(), extra.items(), trace_headers())


class OpenAIProvider(HttpProvider):
    """What an OpenAI API provider is made of: its client sources, its route (when our
    client sends) and how it streams a request's server-sent events."""

    _api: str

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
        reasoning: bool | None = None,
        capabilities: Capabilities | None = None,
        share_client: bool = False,
    ) -> None:
        self._model = model
        # Whether to send reasoning settings: non-reasoning models reject them.
        self.capabilities = capabilities or capabilities_for(
            model, context_window=context_window, reasoning=reasoning
        )
        options = ClientOptions(
            api_key, base_url, timeout, max_retries, default_headers, http_client
        )
        # Both OpenAI APIs share one client per base URL and key.
        clients = provider_clients(PROVIDER, _ENV, _sdk_client, options, share=share_client)
        self._clients, self._http_clients, self._route = clients.sdk, clients.http, clients.route
        self._custom_headers = dict(default_headers or {})
        self._errors = OpenAIErrors(self._api)
        self.created_by_loopwright = share_client

    def server_events(
        self, path: str, content: bytes, extra_headers: Mapping[str, str]
    ) -> AsyncIterator[ServerSentEvent]:
        """POST ``content`` (a body's ``json_content``) to ``path`` and yield the
        response's server-sent events (by our client, or the SDK); failures are raised as
        ModelErrors. Nothing comes after ``[DONE]``."""
        route = self._route
        if route is None:
            return sdk_events(
                _sdk(), lambda: self._sdk_post(path, content, extra_headers), self._errors
            )
        headers = request_headers(route.api_key, custom=self._custom_headers, extra=extra_headers)
        client = self._http_clients.get()
        return post_events(client, route.endpoint(path), headers, content, self._errors)

    async def post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """POST ``body`` to ``path`` by our client and read its JSON; None when the SDK
        sends this provider's requests."""
        route = self._route
        if route is None:
            return None
        headers = request_headers(route.api_key, custom=self._custom_headers, extra={})
        client = self._http_clients.get()
        return await post_json(
            client, route.endpoint(path), headers, json_content(body), self._errors
        )

    async def _sdk_post(self, path: str, content: bytes, extra_headers: Mapping[str, str]) -> Any:
        import openai

        client: openai.AsyncOpenAI = self._clients.get()
        # Posted as prepared: see AnthropicModel._sdk_post for why not create().
        options: dict[str, Any] = {"security": {"bearer_auth": True}}
        if extra_headers:
            options["headers"] = dict(extra_headers)
        return await client.post(
            path,
            content=content,
            cast_to=object,
            stream=True,
            stream_cls=openai.AsyncStream[object],
            options=options,  # type: ignore[arg-type]
        )

    def sdk_error(self, exc: BaseException) -> ModelError:
        """An exception of an SDK call (token counting) as a ModelError."""
        return sdk_error(_sdk(), exc, self._errors, mid_stream=False)


def _sdk() -> Any:
    import openai

    return openai


def _sdk_client(options: ClientOptions) -> openai.AsyncOpenAI:
    import openai

    return openai.AsyncOpenAI(**options.sdk_arguments())


def usage_from(
    *, total_input: int, output: int, cached: int | None, cache_write: int | None
) -> Usage:
    """OpenAI counts cached tokens inside the input total; ours keeps them apart."""
    cache_read = cached or 0
    creation = cache_write or 0
    return Usage(
        input_tokens=max(0, total_input - cache_read - creation),
        output_tokens=output,
        cache_read_input_tokens=cache_read,
        cache_creation_input_tokens=creation,
    )


def kind_for_code(code: str | None, message: str) -> ModelErrorKind:
    """The kind of an error reported inside a stream (no HTTP status to go by)."""
    lowered = (code or "").lower()
    if lowered == "context_length_exceeded" or is_context_overflow(message):
        return "context_window_exceeded"
    if "rate_limit" in lowered:
        return "rate_limit"
    if "overloaded" in lowered or lowered in ("server_is_overloaded", "slow_down"):
        return "overloaded"
    if lowered in ("server_error", "internal_error", "api_error"):
        return "server"
    if lowered.startswith("invalid"):
        return "invalid_request"
    return "stream"


_QUOTA_HINT = " — add credit or raise the spending limit of the account behind the API key"
_HINTS: dict[str, str] = {
    "authentication": " — check OPENAI_API_KEY (or the key your base_url's server expects)",
    "context_window_exceeded": " — the conversation must be compacted to fit",
}


_STATUS_KINDS: dict[int, ModelErrorKind] = {
    400: "invalid_request",
    401: "authentication",
    403: "authentication",
    404: "invalid_request",
    408: "timeout",
    409: "server",
    413: "invalid_request",
    422: "invalid_request",
    429: "rate_limit",
    503: "overloaded",
    529: "overloaded",
}


class OpenAIErrors:
    """A refused request to one of the APIs (named ``api`` in messages) as a ModelError."""

    def __init__(self, api: str) -> None:
        self.api = api

    def status_error(self, status: int, headers: Mapping[str, str], body: bytes) -> ModelError:
        error, text = error_object(body)
        code = str(error.get("code") or "")
        message = str(error.get("message") or text or f"HTTP {status}")
        kind: ModelErrorKind
        if code == "insufficient_quota":
            kind = "other"  # sent as a 429, but no wait helps: the account is out of credit
        elif status != 429 and "overloaded" in code:
            kind = "overloaded"
        else:
            kind = _STATUS_KINDS.get(status, "server" if status >= 500 else "other")
        overflow = code == "context_length_exceeded" or is_context_overflow(message)
        if kind == "invalid_request" and status in (400, 413) and overflow:
            kind = "context_window_exceeded"
        hint = _QUOTA_HINT if code == "insufficient_quota" else _HINTS.get(kind, "")
        return ModelError(
            f"{self.api} error {status} ({code or 'unknown'}): {message}{hint}",
            kind=kind,
            status_code=status,
            retry_after=retry_after_seconds(headers),
        )

    def stream_error(self, error: Any) -> ModelError:
        """An error object inside an otherwise successful (200) stream."""
        details: dict[str, Any] = error if isinstance(error, dict) else {"message": str(error)}
        message = str(details.get("message") or "An error occurred during streaming")
        code = details.get("code") or details.get("type")
        code_text = str(code) if code is not None else None
        return ModelError(
            f"{self.api} stream error ({code_text or 'unknown'}): {message}",
            kind=kind_for_code(code_text, message),
        )
