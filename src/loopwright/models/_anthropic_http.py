"""What the Anthropic Messages API is sent besides the body, and how its refusals read.

:func:`request_headers` is our own table of the headers the API needs (the key as
``x-api-key``, the API version, the JSON content type, betas) and those the user adds;
:class:`AnthropicErrors` maps a status and error body — or an ``error`` event mid-stream —
to a ModelError whose kind ``retry.py`` acts on. Both transports use the same table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.models._http import Header
from loopwright.models._provider_base import USER_AGENT, retry_after_seconds
from loopwright.models._transport import (
    error_object,
    header_lines,
    merged_headers,
    trace_headers,
)
from loopwright.models.overflow import is_context_overflow

# The API version whose request and event shapes _anthropic_wire and _anthropic_events
# speak (the one anthropic 2.10's types describe); changed deliberately, with them.
API_VERSION = "2026-10-21"
# Extra headers for every request, one "Name: value" a line (as the SDK reads it too).
CUSTOM_HEADERS_ENV = "ANTHROPIC_CUSTOM_HEADERS"


def request_headers(
    api_key: str,
    *,
    custom: Mapping[str, str],
    extra: Mapping[str, str],
    betas: Sequence[str],
) -> list[Header]:
    """The headers of a Messages request: ours, then the client's ``custom`` ones (with
    $ANTHROPIC_CUSTOM_HEADERS under them), then the request's ``extra`` ones. Beta flags
    from every layer are sent together in one ``anthropic-beta``."""
    ours: list[Header] = [
        ("accept", "application/json"),
        ("accept-encoding", "gzip, deflate"),
        ("content-type", "application/json"),
        ("user-agent", USER_AGENT),
        ("x-api-key", api_key),
        ("anthropic-version", API_VERSION),
    ]
    layers = [header_lines(os.environ.get(CUSTOM_HEADERS_ENV)), custom.items(), extra.items()]
    headers = merged_headers(ours, *layers, trace_headers())
    flags = _beta_flags([*_betas_in(layers), *betas])
    if flags:
        headers = merged_headers(headers, [("anthropic-beta", ",".join(flags))])
    return headers


def _betas_in(layers: Iterable[Iterable[Header]]) -> list[str]:
    found: list[str] = []
    for layer in layers:
        for name, value in layer:
            if name.lower() == "anthropic-beta":
                found.extend(value.split(","))
    return found


def _beta_flags(flags: Iterable[str]) -> list[str]:
    unique: list[str] = []
    for flag in (f.strip() for f in flags):
        if flag and flag not in unique:
            unique.append(flag)
    return unique


# A refused request's status → the kind of error (retry.py retries the transient ones).
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
    529: "overloaded",
}
# An ``error`` event after a 200 has only its type to go by. Only transient types are
# retried: a request the API refused mid-stream would be refused again.
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


class AnthropicErrors:
    """The Messages API's refusals as ModelErrors."""

    api = "Anthropic"

    def status_error(self, status: int, headers: Mapping[str, str], body: bytes) -> ModelError:
        error, text = error_object(body)
        error_type = str(error.get("type") or "")
        message = str(error.get("message") or text or f"HTTP {status}")
        if status != 429 and error_type == "overloaded_error":
            kind: ModelErrorKind = "overloaded"
        else:
            kind = _STATUS_KINDS.get(status, "server" if status >= 500 else "other")
        if kind == "invalid_request" and status in (400, 413) and is_context_overflow(message):
            kind = "context_window_exceeded"
        return ModelError(
            f"Anthropic API error {status} ({error_type or 'unknown'}): {message}"
            + _HINTS.get(kind, ""),
            kind=kind,
            status_code=status,
            retry_after=retry_after_seconds(headers),
        )

    def event_error(self, body: Any) -> ModelError:
        """An ``error`` event of a stream (its JSON, or its text when it was not JSON)."""
        inner = body.get("error") if isinstance(body, dict) else None
        error: dict[str, Any] = inner if isinstance(inner, dict) else {}
        error_type = str(error.get("type") or "")
        message = str(error.get("message") or body or "an error event with no message")
        kind = _STREAM_ERROR_KINDS.get(error_type, "stream")
        if kind == "invalid_request" and is_context_overflow(message):
            kind = "context_window_exceeded"
        return ModelError(
            f"Anthropic stream error ({error_type}): {message}{_HINTS.get(kind, '')}", kind=kind
        )
