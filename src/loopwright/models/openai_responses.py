"""OpenAI models through the Responses API (``openai:<id>``), streaming.

Nothing is stored server-side (``store=False``): reasoning items come back encrypted
(``include=["reasoning.encrypted_content"]``), ride along in ThinkingBlock.provider_data,
and are sent back verbatim on the next turn so the model keeps its chain of thought.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models._openai_common import PROVIDER, OpenAIProvider
from loopwright.models._openai_settings import apply_settings, check_settings, server_tool_params
from loopwright.models._provider_base import WireCache, json_body, json_bytes, to_json
from loopwright.models._responses_output import Assembly, Done, ErrorData, stream_item
from loopwright.models._tool_arguments import tool_arguments_json
from loopwright.models.base import ModelEvent, ModelRequest
from loopwright.models.settings import ModelSettings, ServerTool

_API = "OpenAI Responses API"
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
# Keys of a reasoning output item that the API accepts back as an input item.
_REASONING_KEYS = ("type", "id", "summary", "content", "encrypted_content")


class OpenAIResponsesModel(OpenAIProvider):
    """An OpenAI model on the Responses API. ``name`` is the model id."""

    _api = _API
    # Made at the first request (the constructor is OpenAIProvider's).
    _wire: WireCache[tuple[list[dict[str, Any]], str]] | None = None

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError) what the Responses API cannot carry, before a request."""
        check_settings("responses", settings, server_tools, self.supports_reasoning)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        content = self._request_body(request)
        extra_headers = request.settings.extra_headers if request.settings else {}
        assembly = Assembly(self._model)
        async for sse in self.server_events("/responses", content, extra_headers):
            try:
                item = stream_item(sse)
            except ValueError as exc:
                raise ModelError(f"{_API} sent an unreadable event: {exc!r}") from exc
            if isinstance(item, Done):
                break
            if isinstance(item, ErrorData):
                raise self._errors.stream_error(item.body)
            delta = assembly.handle(item)
            if delta is not None:
                yield delta
        yield assembly.response()

    def _request_body(self, request: ModelRequest) -> bytes:
        """``json_content`` of ``build_body``; the history's items converted and encoded
        once, in earlier requests."""
        if self._wire is None:
            self._wire = WireCache(_items_json)
        converted = self._wire.convert_all(request.messages)
        items = list(chain.from_iterable(map(_FIRST, converted)))
        texts = ",".join(filter(None, map(_SECOND, converted)))
        body = build_body(request, self._model, reasoning=self.supports_reasoning, items=items)
        return json_bytes(json_body(body, "input", items, f"[{texts}]"))

    async def aclose(self) -> None:
        self._wire = None
        await super().aclose()

    async def count_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` by the Responses input-token counting endpoint."""
        body = build_body(request, self._model, reasoning=self.supports_reasoning)
        for key in ("stream", "store", "include", "max_output_tokens", "prompt_cache_key"):
            body.pop(key, None)
        counted = await self.post_json("/responses/input_tokens", body)
        if counted is not None:
            tokens = counted.get("input_tokens")
            if not isinstance(tokens, int):
                raise ModelError(f"{_API} counted no input_tokens: {counted!r}")
            return tokens
        client = self._clients.get()
        try:
            result = await client.responses.input_tokens.count(**body)
        except Exception as exc:
            raise self.sdk_error(exc) from exc
        return result.input_tokens


# --------------------------------------------------------------------------- request


def build_body(
    request: ModelRequest,
    model: str,
    *,
    reasoning: bool,
    items: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The request body; ``items``: the request's messages already converted."""
    body: dict[str, Any] = {
        "model": model,
        "input": convert_messages(request.messages) if items is None else items,
        "stream": True,
        "store": False,
    }
    if request.system:
        body["instructions"] = request.system
    tools = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.input_schema,
            "strict": False,
        }
        for t in request.tools
    ]
    if request.server_tools:
        check_settings("responses", None, request.server_tools, reasoning)
        tools.extend(server_tool_params(request.server_tools))
    if tools:
        body["tools"] = tools
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
    if request.response_format is not None:
        fmt = request.response_format
        body["text"] = {
            "format": {
                "type": "json_schema",
                "name": fmt.name,
                "schema": fmt.schema,
                "strict": fmt.strict,
            }
        }
    if request.settings is not None:
        apply_settings("responses", body, request.settings)
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
    return [item for message in messages for item in message_items(message)]


def message_items(message: AssistantMessage | UserMessage) -> list[dict[str, Any]]:
    """One message's input items (the same wherever it is in the history)."""
    if isinstance(message, UserMessage):
        return _user_items(message)
    return _assistant_items(message)


def _items_json(message: AssistantMessage | UserMessage) -> tuple[list[dict[str, Any]], str]:
    """The message's items and their JSON, joined by commas."""
    items = message_items(message)
    return items, ",".join(map(to_json, items))


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
            case TextBlock(text=text, provider_data=data) if text or data:
                _add_text(items, text, data)
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
            case ServerToolBlock(provider_data=data) if data and data.get("provider") == PROVIDER:
                item = data.get("item")
                if isinstance(item, dict):
                    items.append(dict(cast(dict[str, Any], item)))
            case _:
                pass  # other providers' thinking and hosted tools are not portable
    return items


def _add_text(items: list[dict[str, Any]], text: str, data: dict[str, Any] | None) -> None:
    """Our own output messages go back as output messages — id, ``phase`` and annotations
    included (models from gpt-5.3-codex on need phase on every assistant message); text
    from elsewhere goes as a plain assistant message."""
    item_id = (data or {}).get("item_id") if (data or {}).get("provider") == PROVIDER else None
    if not isinstance(item_id, str):
        if text:
            items.append({"type": "message", "role": "assistant", "content": text})
        return
    assert data is not None
    part: dict[str, Any]
    if data.get("refusal"):
        part = {"type": "refusal", "refusal": text}
    else:
        part = {"type": "output_text", "text": text, "annotations": data.get("annotations", [])}
    last = items[-1] if items else None
    if last is not None and last.get("id") == item_id and last.get("type") == "message":
        last["content"].append(part)  # several parts of one output message
        return
    message: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "id": item_id,
        "status": "completed",
        "content": [part],
    }
    if data.get("phase") is not None:
        message["phase"] = data["phase"]
    items.append(message)


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _image(block: ImageBlock) -> dict[str, Any]:
    url = f"data:{block.media_type};base64,{block.data}"
    return {"type": "input_image", "image_url": url, "detail": "auto"}
