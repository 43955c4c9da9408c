"""OpenAI models through the Responses API (``openai:<id>``), streaming.

Nothing is stored server-side (``store=False``): reasoning items come back encrypted
(``include=["reasoning.encrypted_content"]``), ride along in ThinkingBlock.provider_data,
and are sent back verbatim on the next turn so the model keeps its chain of thought.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx2
import openai
from openai.types.responses import Response, ResponseStreamEvent

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models._openai_common import (
    PROVIDER,
    context_window_for,
    is_reasoning_model,
    kind_for_code,
    make_client,
    map_error,
    usage_from,
)
from loopwright.models._wire import (
    ClientPerLoop,
    SDKProvider,
    json_content,
    tool_arguments_json,
    tool_use_from_arguments,
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

_API = "OpenAI Responses API"
# Keys of a reasoning output item that the API accepts back as an input item.
_REASONING_KEYS = ("type", "id", "summary", "content", "encrypted_content")


class OpenAIResponsesModel(SDKProvider):
    """An OpenAI model on the Responses API. ``name`` is the model id."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | None = 600.0,
        max_retries: int = 0,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx2.AsyncClient | None = None,
        context_window: int | None = None,
        reasoning: bool | None = None,
    ) -> None:
        self._model = model
        self.context_window: int = context_window or context_window_for(model)
        # Whether to send reasoning settings; non-reasoning models reject them.
        self.supports_reasoning = is_reasoning_model(model) if reasoning is None else reasoning
        self._clients = ClientPerLoop(
            lambda: make_client(
                api_key=api_key,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                default_headers=default_headers,
                http_client=http_client,
            )
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        client = self._clients.get()
        body = build_body(request, self._model, reasoning=self.supports_reasoning)
        try:
            # Posted as prepared: see _post_messages in anthropic.py for why not create().
            created: Any = await client.post(
                "/responses",
                content=json_content(body),
                cast_to=Response,
                stream=True,
                stream_cls=openai.AsyncStream[ResponseStreamEvent],
                options={"security": {"bearer_auth": True}},
            )
        except Exception as exc:
            raise map_error(exc, mid_stream=False, api=_API) from exc
        assembly = _Assembly(self._model)
        try:
            async for event in created:
                delta = assembly.handle(event)
                if delta is not None:
                    yield delta
        except ModelError:
            raise
        except Exception as exc:
            raise map_error(exc, mid_stream=True, api=_API) from exc
        finally:
            await created.close()
        yield assembly.response()

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` by the Responses input-token counting endpoint."""
        client = self._clients.get()
        body = build_body(request, self._model, reasoning=self.supports_reasoning)
        for key in ("stream", "store", "include", "max_output_tokens", "prompt_cache_key"):
            body.pop(key, None)
        try:
            counted = await client.responses.input_tokens.count(**body)
        except Exception as exc:
            raise map_error(exc, mid_stream=False, api=_API) from exc
        return counted.input_tokens


# --------------------------------------------------------------------------- request


def build_body(request: ModelRequest, model: str, *, reasoning: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "input": convert_messages(request.messages),
        "stream": True,
        "store": False,
    }
    if request.system:
        body["instructions"] = request.system
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
                "strict": False,
            }
            for t in request.tools
        ]
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    session_id = request.metadata.get("session_id")
    if isinstance(session_id, str) and session_id:
        # Routes a session's requests to the same cache shard: more cached-token hits.
        body["prompt_cache_key"] = session_id
    if reasoning:
        body["include"] = ["reasoning.encrypted_content"]
        settings = reasoning_settings(request)
        if settings:
            body["reasoning"] = settings
    return body


def reasoning_settings(request: ModelRequest) -> dict[str, Any]:
    """``effort`` maps one to one; thinking "disabled" is effort "none"; a summary of the
    reasoning is asked for unless thinking display is "omitted"."""
    thinking = request.thinking
    if thinking is not None and thinking.type == "disabled":
        return {"effort": "none"}
    settings: dict[str, Any] = {}
    if request.effort is not None:
        settings["effort"] = request.effort
    if thinking is None or thinking.display != "omitted":
        settings["summary"] = "auto"
    return settings


def convert_messages(messages: list[AssistantMessage | UserMessage]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            items.extend(_user_items(message))
        else:
            items.extend(_assistant_items(message))
    return items


def _user_items(message: UserMessage) -> list[dict[str, Any]]:
    if isinstance(message.content, str):
        return [{"type": "message", "role": "user", "content": message.content}]
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ToolResultBlock():
                items.append(_tool_output(block))
            case TextBlock(text=text) if text:
                parts.append({"type": "input_text", "text": text})
            case ImageBlock():
                parts.append(_image(block))
            case _:
                pass
    # Tool outputs must directly follow their calls; any prose comes after them.
    if parts:
        items.append({"type": "message", "role": "user", "content": parts})
    return items


def _tool_output(block: ToolResultBlock) -> dict[str, Any]:
    # The API has no is_error flag; the model reads the failure from the text.
    prefix = "Error: " if block.is_error else ""
    output: str | list[dict[str, Any]]
    if isinstance(block.content, str):
        output = prefix + block.content
    else:
        output = [
            _image(part) if isinstance(part, ImageBlock) else _text(part.text)
            for part in block.content
        ]
        if prefix:
            output.insert(0, _text(prefix.strip()))
    return {"type": "function_call_output", "call_id": block.tool_use_id, "output": output}


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ThinkingBlock(provider_data=data) if data and data.get("provider") == PROVIDER:
                item = data.get("item")
                if isinstance(item, dict):
                    items.append({k: v for k, v in item.items() if k in _REASONING_KEYS})
            case TextBlock(text=text) if text:
                items.append({"type": "message", "role": "assistant", "content": text})
            case ToolUseBlock():
                call: dict[str, Any] = {
                    "type": "function_call",
                    "call_id": block.id,
                    "name": block.name,
                    "arguments": tool_arguments_json(block),
                }
                item_id = (block.provider_data or {}).get("item_id")
                if isinstance(item_id, str):
                    call["id"] = item_id
                items.append(call)
            case _:
                pass  # other providers' thinking is not portable
    return items


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _image(block: ImageBlock) -> dict[str, Any]:
    url = f"data:{block.media_type};base64,{block.data}"
    return {"type": "input_image", "image_url": url, "detail": "auto"}


# --------------------------------------------------------------------------- response


class _Assembly:
    def __init__(self, model: str) -> None:
        self.model = model
        self.response_id: str | None = None
        self.tool_ordinal: dict[int, int] = {}
        self.done_items: dict[int, Any] = {}
        self.final: Any = None

    def handle(self, event: Any) -> ModelEvent | None:
        kind: str = event.type
        match kind:
            case "response.output_text.delta" | "response.refusal.delta":
                return TextDelta(event.delta, raw=event.to_dict())
            case "response.function_call_arguments.delta":
                ordinal = self.tool_ordinal.get(event.output_index, 0)
                return ToolInputDelta(ordinal, event.delta, raw=event.to_dict())
            case "response.reasoning_summary_text.delta" | "response.reasoning_text.delta":
                return ThinkingDelta(event.delta, raw=event.to_dict())
            case "response.output_item.added":
                item = event.item
                if item.type == "function_call":
                    ordinal = len(self.tool_ordinal)
                    self.tool_ordinal[event.output_index] = ordinal
                    return ToolCallStart(ordinal, item.call_id, item.name, raw=event.to_dict())
            case "response.output_item.done":
                self.done_items[event.output_index] = event.item
            case "response.created":
                self.response_id = event.response.id
            case "response.completed" | "response.incomplete":
                self.final = event.response
            case "response.failed":
                error = event.response.error
                message = error.message if error is not None else "the response failed"
                code = error.code if error is not None else None
                raise ModelError(
                    f"{_API} response failed ({code}): {message}",
                    kind=kind_for_code(code, message),
                )
            case "error":
                raise ModelError(
                    f"{_API} stream error ({event.code}): {event.message}",
                    kind=kind_for_code(event.code, event.message),
                )
            case _:
                pass
        return None

    def response(self) -> ModelResponse:
        final = self.final
        if final is None:
            raise ModelError(
                f"the {_API} stream ended before response.completed (connection cut)",
                kind="stream",
            )
        output = list(final.output) or [self.done_items[i] for i in sorted(self.done_items)]
        content, refused = _content(output)
        has_calls = any(isinstance(b, ToolUseBlock) for b in content)
        stop = "tool_use" if has_calls else "end_turn"
        if final.status == "incomplete":
            reason = getattr(final.incomplete_details, "reason", None)
            stop = "refusal" if reason == "content_filter" else "max_tokens"
        elif refused:
            stop = "refusal"
        usage, reasoning_tokens = _usage(final.usage)
        return ModelResponse(
            content=content,
            usage=usage,
            stop_reason=stop,
            model=final.model or self.model,
            message_id=final.id or self.response_id,
            provider_data={
                "provider": PROVIDER,
                "status": final.status,
                "reasoning_tokens": reasoning_tokens,
            },
        )


def _content(output: list[Any]) -> tuple[list[ContentBlock], bool]:
    content: list[ContentBlock] = []
    refused = False
    for item in output:
        match item.type:
            case "reasoning":
                summary = "\n\n".join(part.text for part in item.summary)
                if not summary and item.content:
                    summary = "\n\n".join(part.text for part in item.content)
                data = item.to_dict(exclude_none=True)
                content.append(ThinkingBlock(summary, None, {"provider": PROVIDER, "item": data}))
            case "message":
                for part in item.content:
                    if part.type == "output_text":
                        content.append(TextBlock(part.text))
                    elif part.type == "refusal":
                        refused = True
                        content.append(TextBlock(part.refusal))
            case "function_call":
                extra = {"item_id": item.id} if item.id else None
                content.append(
                    tool_use_from_arguments(item.call_id, item.name, item.arguments, extra)
                )
            case _:
                pass  # hosted-tool items: loopwright does not request them
    return content, refused


def _usage(usage: Any) -> tuple[Usage, int]:
    if usage is None:
        return Usage(), 0
    details = usage.input_tokens_details
    result = usage_from(
        total_input=usage.input_tokens,
        output=usage.output_tokens,
        cached=getattr(details, "cached_tokens", None),
        cache_write=getattr(details, "cache_write_tokens", None),
    )
    reasoning = getattr(usage.output_tokens_details, "reasoning_tokens", 0) or 0
    return result, int(reasoning)
