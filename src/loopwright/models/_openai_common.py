"""What both OpenAI APIs share: the client, error mapping, model capabilities, usage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2
import openai

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.messages import Usage
from loopwright.models._client_pool import PooledClients
from loopwright.models._wire import (
    ClientPerLoop,
    Timeout,
    client_source,
    retry_after_seconds,
    timeout_arguments,
)
from loopwright.models.overflow import is_context_overflow

PROVIDER = "openai"


def make_clients(
    *,
    api_key: str | None,
    base_url: str | None,
    timeout: Timeout,
    max_retries: int,
    default_headers: Mapping[str, str] | None,
    http_client: httpx2.AsyncClient | None,
    share: bool,
) -> ClientPerLoop[Any] | PooledClients:
    """The provider's client source: its own, or the process's shared one for this base
    URL and key (both OpenAI APIs use the same client)."""

    def make() -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=max_retries,
            default_headers=default_headers,
            http_client=http_client,
            **timeout_arguments(timeout),
        )

    headers = tuple(sorted((default_headers or {}).items()))
    key = (PROVIDER, api_key, base_url, timeout, max_retries, headers)
    return client_source(key, make, share=share and http_client is None)


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
