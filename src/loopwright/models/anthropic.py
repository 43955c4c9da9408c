"""Claude through the official ``anthropic`` SDK: streaming Messages API → ModelEvents.

Retries are ours (``retry.py``), so the SDK client is built with ``max_retries=0``.
Requests with a task budget go to the beta endpoint with the beta flag it needs; all
others use the stable endpoint. Both stream the same event shapes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, cast

import anthropic
import httpx2
from anthropic.lib._tracing._api_call import messages_create_request_attributes
from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent

from loopwright.errors import ModelError, ModelErrorKind
from loopwright.messages import ContentBlock, Usage
from loopwright.models._anthropic_blocks import finish_block, start_block
from loopwright.models._anthropic_settings import check_settings
from loopwright.models._anthropic_wire import PROVIDER, build_body, count_tokens_body
from loopwright.models._wire import (
    SDK_DEFAULT_TIMEOUT,
    SDKProvider,
    Timeout,
    client_source,
    json_content,
    retry_after_seconds,
    timeout_arguments,
)
from loopwright.models.base import (
    ModelEvent,
    ModelRequest,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)
from loopwright.models.capabilities import Capabilities, capabilities_for
from loopwright.models.overflow import is_context_overflow
from loopwright.models.settings import ModelSettings, ServerTool

_STOP_REASONS: dict[str, str] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    "stop_sequence": "stop_sequence",
    "model_context_window_exceeded": "context_window_exceeded",
}

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

        def make_client() -> anthropic.AsyncAnthropic:
            return anthropic.AsyncAnthropic(
                api_key=api_key,
                base_url=base_url,
                max_retries=max_retries,
                default_headers=default_headers,
                http_client=http_client,
                **timeout_arguments(timeout),
            )

        headers = tuple(sorted((default_headers or {}).items()))
        key = (PROVIDER, api_key, base_url, timeout, max_retries, headers)
        share = share_client and http_client is None
        self._clients = client_source(key, make_client, share=share)
        self.created_by_loopwright = share_client

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError) what the Messages API cannot carry, before a request."""
        check_settings(settings, server_tools)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        client = self._clients.get()
        limit = self.capabilities.max_output_tokens
        body, betas = build_body(request, self._wire_model, output_limit=limit)
        betas += self._betas
        extra_headers = request.settings.extra_headers if request.settings else {}
        try:
            created = await _post_messages(client, body, betas, extra_headers)
        except Exception as exc:
            raise map_error(exc, mid_stream=False) from exc
        events = cast(AsyncIterator[Any], created)
        assembly = _Assembly(self._model)
        try:
            async for event in events:
                delta = assembly.handle(event)
                if delta is not None:
                    yield delta
        except ModelError:
            raise
        except Exception as exc:
            raise map_error(exc, mid_stream=True) from exc
        finally:
            await created.close()
        yield assembly.response()

    async def count_tokens(self, request: ModelRequest) -> int:
        client = self._clients.get()
        try:
            counted = await client.messages.count_tokens(
                **count_tokens_body(request, self._wire_model)
            )
        except Exception as exc:
            raise map_error(exc, mid_stream=False) from exc
        return counted.input_tokens


# The SDK's own OpenTelemetry span for messages.create (and the traceparent header it
# sends), which a plain post() would not open. Internal request options of the SDK, as
# its own create() passes them; tests compare our requests with create()'s.
_TRACED: Any = {
    "span_name": "anthropic.messages.create",
    "span_route": "/v1/messages",
    "span_attributes": messages_create_request_attributes,
}


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
    options: dict[str, Any] = dict(_TRACED)
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


class _Assembly:
    """Builds the final response from stream events, emitting provider-neutral deltas."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.message_id: str | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.tool_ordinal: dict[int, int] = {}
        self.usage: dict[str, int] = {}
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.finished = False

    def handle(self, event: Any) -> ModelEvent | None:
        kind: str = event.type
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._start(event)
        if kind == "message_start":
            message = event.message
            self.message_id = message.id
            self.model = message.model or self.model
            self._take_usage(message.usage)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.stop_sequence = event.delta.stop_sequence
            self._take_usage(event.usage)
        elif kind == "message_stop":
            self.finished = True
        return None

    def _start(self, event: Any) -> ModelEvent | None:
        block = event.content_block
        index: int = event.index
        self.blocks[index] = start_block(block)
        if block.type == "tool_use":
            ordinal = len(self.tool_ordinal)
            self.tool_ordinal[index] = ordinal
            return ToolCallStart(ordinal, block.id, block.name, raw=event.to_dict())
        return None

    def _delta(self, event: Any) -> ModelEvent | None:
        block = self.blocks.get(event.index)
        delta = event.delta
        if block is None:
            return None
        match delta.type:
            case "text_delta":
                block["text"].append(delta.text)
                return TextDelta(delta.text, raw=event.to_dict())
            case "thinking_delta":
                block["text"].append(delta.thinking)
                return ThinkingDelta(delta.thinking, raw=event.to_dict())
            case "signature_delta":
                block["signature"] = delta.signature
            case "input_json_delta":
                block["json"].append(delta.partial_json)
                ordinal = self.tool_ordinal.get(event.index)
                if ordinal is None:
                    return None  # a server tool's input: the provider runs it, not us
                return ToolInputDelta(ordinal, delta.partial_json, raw=event.to_dict())
            case "citations_delta":
                block.setdefault("citations", []).append(delta.citation.to_dict())
            case _:
                pass
        return None

    def _take_usage(self, usage: Any) -> None:
        # message_delta usage is cumulative; a None field means "unchanged".
        for field in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = getattr(usage, field, None)
            if value is not None:
                self.usage[field] = int(value)

    def response(self) -> ModelResponse:
        if not self.finished:
            raise ModelError(
                "the Anthropic stream ended before message_stop (connection cut mid-response)",
                kind="stream",
            )
        content: list[ContentBlock] = []
        for index in sorted(self.blocks):
            block = finish_block(self.blocks[index])
            if block is not None:
                content.append(block)
        stop = _STOP_REASONS.get(self.stop_reason or "", self.stop_reason)
        provider_data: dict[str, Any] = {"provider": PROVIDER}
        if self.stop_reason is not None:
            provider_data["stop_reason"] = self.stop_reason
        if self.stop_sequence is not None:
            provider_data["stop_sequence"] = self.stop_sequence
        return ModelResponse(
            content=content,
            usage=Usage(**self.usage),
            stop_reason=stop,
            model=self.model,
            message_id=self.message_id,
            provider_data=provider_data,
        )


def map_error(exc: BaseException, *, mid_stream: bool) -> ModelError:
    """An SDK or transport exception as a ModelError with the kind retry.py acts on."""
    if isinstance(exc, ModelError):
        return exc
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
