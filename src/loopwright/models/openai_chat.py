"""Chat Completions (``openai-chat:<id>``): OpenAI and every compatible server.

Ollama, vLLM, llama.cpp server, LM Studio and OpenRouter differ only in configuration:

    OpenAIChatModel("llama3.1:8b", base_url="http://localhost:11434/v1", api_key="ollama")
    OpenAIChatModel("meta-llama/llama-3.3-70b", base_url="https://openrouter.ai/api/v1",
                    api_key=os.environ["OPENROUTER_API_KEY"])

Tool-call deltas are assembled by index. Reasoning that compatible servers stream as
``reasoning_content`` or ``reasoning`` becomes ThinkingDelta/ThinkingBlock; it is not sent
back (the API has no field for it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models._openai_common import (
    PROVIDER,
    context_window_for,
    is_reasoning_model,
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

_API = "Chat Completions API"
_FINISH = {
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}


class OpenAIChatModel(SDKProvider):
    """A model behind a Chat Completions endpoint. ``name`` is the model id."""

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
        max_tokens_field: Literal["max_tokens", "max_completion_tokens"] | None = None,
    ) -> None:
        self._model = model
        self.context_window: int = context_window or context_window_for(model)
        self.supports_reasoning = is_reasoning_model(model) if reasoning is None else reasoning
        # OpenAI itself wants max_completion_tokens; most compatible servers only know
        # max_tokens.
        self.max_tokens_field = max_tokens_field or (
            "max_completion_tokens" if _is_openai(base_url) else "max_tokens"
        )
        # Local servers need no key, but the SDK refuses to start without one.
        key = api_key if api_key is not None or base_url is None else "not-needed"
        self._clients = ClientPerLoop(
            lambda: make_client(
                api_key=key,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                default_headers=default_headers,
                http_client=http_client,
            )
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        client = self._clients.get()
        body = self.build_body(request)
        try:
            # Posted as prepared: see _post_messages in anthropic.py for why not create().
            created: Any = await client.post(
                "/chat/completions",
                content=json_content(body),
                cast_to=ChatCompletion,
                stream=True,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
                options={"security": {"bearer_auth": True}},
            )
        except Exception as exc:
            raise map_error(exc, mid_stream=False, api=_API) from exc
        assembly = _Assembly(self._model)
        try:
            async for chunk in created:
                for event in assembly.handle(chunk):
                    yield event
        except ModelError:
            raise
        except Exception as exc:
            raise map_error(exc, mid_stream=True, api=_API) from exc
        finally:
            await created.close()
        yield assembly.response()

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend(convert_messages(request.messages))
        body: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.input_schema,
                    },
                }
                for t in request.tools
            ]
        if request.max_tokens is not None:
            body[self.max_tokens_field] = request.max_tokens
        if self.supports_reasoning:
            if request.thinking is not None and request.thinking.type == "disabled":
                body["reasoning_effort"] = "none"
            elif request.effort is not None:
                body["reasoning_effort"] = request.effort
        return body


def _is_openai(base_url: str | None) -> bool:
    """OpenAI's own endpoint: no base_url, or one naming api.openai.com (OPENAI_BASE_URL is
    often set to it), where reasoning models refuse ``max_tokens``."""
    if base_url is None:
        return True
    return urlsplit(base_url).hostname == "api.openai.com"


def convert_messages(messages: list[AssistantMessage | UserMessage]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        converted = (
            _user_messages(message)
            if isinstance(message, UserMessage)
            else _assistant_message(message)
        )
        for item in converted:
            if wire and item["role"] == "user" and wire[-1]["role"] == "user":
                wire[-1] = _merged_user(wire[-1], item)
            else:
                wire.append(item)
    return wire


def _merged_user(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two user turns in a row (a prompt after a failed run, the task and a compaction
    summary) as one: many compatible servers' chat templates insist that roles alternate."""
    a, b = first["content"], second["content"]
    if isinstance(a, str) and isinstance(b, str):
        return {"role": "user", "content": f"{a}\n\n{b}"}
    parts = [*_parts(a), *_parts(b)]
    return {"role": "user", "content": parts}


def _parts(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _user_messages(message: UserMessage) -> list[dict[str, Any]]:
    if isinstance(message.content, str):
        return [{"role": "user", "content": message.content}]
    wire: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case ToolResultBlock():
                tool_message, images = _tool_message(block)
                wire.append(tool_message)
                parts.extend(images)
            case TextBlock(text=text) if text:
                parts.append({"type": "text", "text": text})
            case ImageBlock():
                parts.append(_image(block))
            case _:
                pass
    # Tool messages must directly follow the assistant's calls; prose and images after.
    if parts:
        wire.append({"role": "user", "content": parts})
    return wire


def _tool_message(block: ToolResultBlock) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    # Tool messages carry text only and have no error flag: images follow as a user
    # message, and the failure is stated in the text.
    prefix = "Error: " if block.is_error else ""
    images: list[dict[str, Any]] = []
    if isinstance(block.content, str):
        content = block.content
    else:
        content = "\n".join(p.text for p in block.content if isinstance(p, TextBlock))
        images = [_image(p) for p in block.content if isinstance(p, ImageBlock)]
    message = {"role": "tool", "tool_call_id": block.tool_use_id, "content": prefix + content}
    return message, images


def _assistant_message(message: AssistantMessage) -> list[dict[str, Any]]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    calls = [
        {
            "id": block.id,
            "type": "function",
            "function": {"name": block.name, "arguments": tool_arguments_json(block)},
        }
        for block in message.content
        if isinstance(block, ToolUseBlock)
    ]
    if not text and not calls:
        return []
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = calls
    return [wire]


def _image(block: ImageBlock) -> dict[str, Any]:
    url = f"data:{block.media_type};base64,{block.data}"
    return {"type": "image_url", "image_url": {"url": url}}


class _Assembly:
    def __init__(self, model: str) -> None:
        self.model = model
        self.message_id: str | None = None
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        # Wire index → our key, for servers that reuse an index for a second call.
        self.moved: dict[int, int] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None

    def handle(self, chunk: Any) -> list[ModelEvent]:
        self.message_id = self.message_id or chunk.id
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = chunk.usage
        events: list[ModelEvent] = []
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
            delta = choice.delta
            extra: dict[str, Any] = delta.model_extra or {}
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                self.thinking.append(reasoning)
                events.append(ThinkingDelta(reasoning, raw=chunk.to_dict()))
            if delta.content:
                self.text.append(delta.content)
                events.append(TextDelta(delta.content, raw=chunk.to_dict()))
            for call in delta.tool_calls or ():
                events.extend(self._tool_delta(call, chunk))
        return events

    def _tool_delta(self, call: Any, chunk: Any) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        wire_index: int | None = getattr(call, "index", None)
        if wire_index is None:
            # Some compatible servers omit the index: a new id starts a new call.
            index = len(self.calls) if call.id or not self.calls else max(self.calls)
        else:
            index = self.moved.get(wire_index, wire_index)
        state: dict[str, Any] | None = self.calls.get(index)
        if state is not None and call.id and call.id != state["id"]:
            # Others number every parallel call 0: a new id at a used index is a new call,
            # not more arguments for the old one (whose JSON it would corrupt).
            index, state = max(self.calls) + 1, None
            if wire_index is not None:
                self.moved[wire_index] = index
        function = call.function
        if state is None:
            ordinal = len(self.calls)
            call_id = call.id or f"call_{ordinal}_{self.message_id or 'chat'}"
            name = (function.name if function is not None else None) or ""
            state = {"ordinal": ordinal, "id": call_id, "name": name, "arguments": []}
            self.calls[index] = state
            events.append(ToolCallStart(ordinal, call_id, name, raw=chunk.to_dict()))
        arguments = function.arguments if function is not None else None
        if arguments:
            state["arguments"].append(arguments)
            events.append(ToolInputDelta(state["ordinal"], arguments, raw=chunk.to_dict()))
        return events

    def response(self) -> ModelResponse:
        if self.finish_reason is None:
            raise ModelError(
                f"the {_API} stream ended without a finish_reason (connection cut)",
                kind="stream",
            )
        content: list[ContentBlock] = []
        if self.thinking:
            content.append(ThinkingBlock("".join(self.thinking), None, {"provider": PROVIDER}))
        if self.text:
            content.append(TextBlock("".join(self.text)))
        for index in sorted(self.calls):
            state = self.calls[index]
            content.append(
                tool_use_from_arguments(state["id"], state["name"], "".join(state["arguments"]))
            )
        stop = _FINISH.get(self.finish_reason, self.finish_reason)
        if stop == "end_turn" and self.calls:
            stop = "tool_use"  # some servers say "stop" even when they called tools
        return ModelResponse(
            content=content,
            usage=self._usage(),
            stop_reason=stop,
            model=self.model,
            message_id=self.message_id,
            provider_data={"provider": PROVIDER, "finish_reason": self.finish_reason},
        )

    def _usage(self) -> Any:
        usage = self.usage
        if usage is None:
            return usage_from(total_input=0, output=0, cached=None, cache_write=None)
        details = usage.prompt_tokens_details
        return usage_from(
            total_input=usage.prompt_tokens,
            output=usage.completion_tokens,
            cached=getattr(details, "cached_tokens", None),
            cache_write=getattr(details, "cache_write_tokens", None),
        )
