"""What both OpenAI APIs share: the provider's clients and how a request is streamed
(through the lean path when it applies, see ``_lean_path``), error mapping, usage."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.messages import Usage
from loopwright.models._lean_path import (
    ClientOptions,
    SDKEnvironment,
    lean_events,
    provider_clients,
    target_of,
)
from loopwright.models._sdk_headers import lean_transport_ok, openai_headers
from loopwright.models._sse import Event
from loopwright.models._wire import (
    SDK_DEFAULT_TIMEOUT,
    SDKProvider,
    Timeout,
    json_content,
    retry_after_seconds,
)
from loopwright.models.capabilities import Capabilities, capabilities_for
from loopwright.models.overflow import is_context_overflow

if TYPE_CHECKING:
    import httpx2
    import openai


PROVIDER = "openai"
_ENV = SDKEnvironment(
    key="OPENAI_API_KEY",
    base_url="OPENAI_BASE_URL",
    default_base_url="https://api.openai.com/v1",
    blockers=("OPENAI_CUSTOM_HEADERS", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"),
)


class OpenAIProvider(SDKProvider):
    """What an OpenAI API provider is made of: its SDK client source, its lean route (when
    its configuration allows one) and how it streams a request's server-sent events."""

    _api: str

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
        self._clients, self._lean_clients, self._lean = clients.sdk, clients.lean, clients.route
        self.created_by_loopwright = share_client

    async def aclose(self) -> None:
        """Close this event loop's HTTP connections (call before the loop ends)."""
        await self._lean_clients.aclose()
        await self._clients.aclose()

    def server_events(
        self, path: str, body: dict[str, Any], extra_headers: Mapping[str, str]
    ) -> AsyncIterator[Event]:
        """POST ``body`` to ``path`` and yield the response's server-sent events (by the
        lean path when it applies, else by the SDK); failures are raised as ModelErrors.
        Nothing comes after ``[DONE]``."""
        route = self._lean
        if route is None or not lean_transport_ok():
            return self._sdk_events(path, body, extra_headers)
        sdk_headers = openai_headers(
            api_key=route.api_key,
            custom=dict(route.custom_headers),
            extra=extra_headers,
            read_timeout=route.read_timeout_header,
        )
        if sdk_headers is None:  # an SDK this code cannot read: let it send
            return self._sdk_events(path, body, extra_headers)
        client = self._lean_clients.get()
        return lean_events(client, target_of(route, path), sdk_headers, json_content(body), self)

    async def _sdk_events(
        self, path: str, body: dict[str, Any], extra_headers: Mapping[str, str]
    ) -> AsyncIterator[Event]:
        import openai

        client = self._clients.get()
        try:
            # Posted as prepared: see _post_messages in anthropic.py for why not create().
            # The events are read as plain JSON: vendor fields stay visible, [DONE] is
            # seen, and no pydantic object is built per event.
            created: Any = await client.post(
                path,
                content=json_content(body),
                cast_to=object,
                stream=True,
                stream_cls=openai.AsyncStream[object],
                options=request_options(extra_headers),
            )
        except Exception as exc:
            raise map_error(exc, mid_stream=False, api=self._api) from exc
        try:
            async for sse in created._iter_events():
                yield sse
                if sse.data.startswith("[DONE]"):
                    return
        except ModelError:
            raise
        except Exception as exc:
            raise map_error(exc, mid_stream=True, api=self._api) from exc
        finally:
            await created.close()

    # How the SDK reports failures (see _lean_path.SDKErrors). Errors inside the events
    # are each API's to read (its stream's JSON), so no event is an error here.
    sdk = "openai"

    def status_error(self, response: Any) -> BaseException:
        return self._clients.get()._make_status_error_from_response(response)

    def is_error_event(self, sse: Event) -> bool:
        return False

    def event_error(self, sse: Event, response: Any) -> BaseException:
        raise AssertionError("no event is an error event here")

    def model_error(self, exc: BaseException, *, mid_stream: bool) -> ModelError:
        return map_error(exc, mid_stream=mid_stream, api=self._api)


def _sdk_client(options: ClientOptions) -> openai.AsyncOpenAI:
    import openai

    return openai.AsyncOpenAI(**options.sdk_arguments())


def request_options(extra_headers: Mapping[str, str]) -> dict[str, Any]:
    """Per-request SDK options: bearer auth, plus the user's extra headers."""
    options: dict[str, Any] = {"security": {"bearer_auth": True}}
    if extra_headers:
        options["headers"] = dict(extra_headers)
    return options


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


def map_error(exc: BaseException, *, mid_stream: bool, api: str) -> ModelError:
    if isinstance(exc, ModelError):
        return exc
    import httpx2
    import openai

    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, api)
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return ModelError(f"{api} request timed out: {exc}", kind="timeout")
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        kind: ModelErrorKind = "stream" if mid_stream else "connection"
        where = "while streaming the response" if mid_stream else "before a response"
        return ModelError(f"connection to {api} failed {where}: {exc!r}", kind=kind)
    if isinstance(exc, openai.APIError):
        # An error object inside an otherwise successful (200) stream.
        message = exc.message
        return ModelError(
            f"{api} stream error ({exc.code or exc.type or 'unknown'}): {message}",
            kind=kind_for_code(exc.code or exc.type, message),
        )
    return ModelError(f"{api} call failed: {exc!r}", kind="other")


_QUOTA_HINT = " — add credit or raise the spending limit of the account behind the API key"
_HINTS: dict[str, str] = {
    "authentication": " — check OPENAI_API_KEY (or the key your base_url's server expects)",
    "context_window_exceeded": " — the conversation must be compacted to fit",
}


def _status_error(exc: openai.APIStatusError, api: str) -> ModelError:
    status = exc.status_code
    body: Any = exc.body
    code = str(body.get("code") or "") if isinstance(body, dict) else ""
    message = str(body.get("message") or exc.message) if isinstance(body, dict) else exc.message
    kind: ModelErrorKind
    if code == "insufficient_quota":
        # Sent as a 429, but no wait helps: the account is out of credit.
        kind = "other"
    elif status == 429:
        kind = "rate_limit"
    elif status in (503, 529) or "overloaded" in code:
        kind = "overloaded"
    elif status == 408:
        kind = "timeout"
    elif status == 409 or status >= 500:
        kind = "server"
    elif status in (401, 403):
        kind = "authentication"
    elif status in (400, 413) and (
        code == "context_length_exceeded" or is_context_overflow(message)
    ):
        kind = "context_window_exceeded"
    elif status in (400, 404, 413, 422):
        kind = "invalid_request"
    else:
        kind = "other"
    hint = _QUOTA_HINT if code == "insufficient_quota" else _HINTS.get(kind, "")
    return ModelError(
        f"{api} error {status} ({code or 'unknown'}): {message}{hint}",
        kind=kind,
        status_code=status,
        retry_after=retry_after_seconds(exc.response.headers),
    )
