"""Chat Completions (``openai-chat:<id>``): OpenAI and every compatible server.

Ollama, vLLM, llama.cpp server, LM Studio and OpenRouter differ only in configuration:

    OpenAIChatModel("llama3.1:8b", base_url="http://localhost:11434/v1", api_key="ollama")
    OpenAIChatModel("meta-llama/llama-3.3-70b", base_url="https://openrouter.ai/api/v1",
                    api_key=os.environ["OPENROUTER_API_KEY"])

Tool-call deltas are assembled by index. Reasoning in any of the compatible servers'
shapes (``reasoning_content``, ``reasoning``, ``reasoning_details``, ``<think>`` text)
becomes ThinkingDelta/ThinkingBlock (see ``_chat_reasoning``); what a server wants back
on the next request goes back.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from loopwright.errors import ModelError
from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models._chat_stream import API, ChatAssembly
from loopwright.models._openai_common import PROVIDER, OpenAIProvider
from loopwright.models._openai_settings import apply_settings, check_settings
from loopwright.models._provider_base import (
    DEFAULT_TIMEOUT,
    Timeout,
    WireCache,
    json_body,
    json_bytes,
    to_json,
)
from loopwright.models._tool_arguments import tool_arguments_json
from loopwright.models.base import ModelEvent, ModelRequest
from loopwright.models.capabilities import Capabilities
from loopwright.models.settings import ModelSettings, ServerTool

if TYPE_CHECKING:
    import httpx2


class OpenAIChatModel(OpenAIProvider):
    """A model behind a Chat Completions endpoint. ``name`` is the model id."""

    _api = API

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
        max_tokens_field: Literal["max_tokens", "max_completion_tokens"] | None = None,
        capabilities: Capabilities | None = None,
        share_client: bool = False,
    ) -> None:
        # Local servers need no key, but the SDK refuses to start without one (and our client
        # sends one all the same: a server that checks none ignores it).
        key = api_key if api_key is not None or base_url is None else "not-needed"
        super().__init__(
            model,
            api_key=key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            http_client=http_client,
            context_window=context_window,
            reasoning=reasoning,
            capabilities=capabilities,
            share_client=share_client,
        )
        # OpenAI itself wants max_completion_tokens; most compatible servers only know
        # max_tokens.
        self.max_tokens_field = max_tokens_field or (
            "max_completion_tokens" if _is_openai(base_url) else "max_tokens"
        )
        self._wire: WireCache[list[tuple[dict[str, Any], str]]] = WireCache(_messages_json)

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        """Refuse (ConfigurationError) what Chat Completions cannot carry, before a request."""
        check_settings("chat", settings, server_tools, self.supports_reasoning)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        content = self._request_body(request)
        extra_headers = request.settings.extra_headers if request.settings else {}
        assembly = ChatAssembly(self._model)
        # Server-sent events read as plain JSON: vendor fields (reasoning_details, x_groq)
        # stay visible, [DONE] is seen, and no pydantic object is built per chunk.
        async for sse in self.server_events("/chat/completions", content, extra_headers):
            if sse.data.startswith("[DONE]"):
                assembly.done = True
                break
            if not sse.data.strip():
                continue  # a keep-alive with an empty data line
            try:
                chunk = json.loads(sse.data)
            except ValueError as exc:
                raise ModelError(f"{API} sent an unreadable chunk: {exc!r}") from exc
            for event in assembly.handle(chunk):
                yield event
        for event in assembly.flush():
            yield event
        yield assembly.response()

    def _request_body(self, request: ModelRequest) -> bytes:
        """``json_content`` of ``build_body``; the history's messages converted and encoded
        once, in earlier requests (a user turn merged with the one before it, anew)."""
        converted = list(chain.from_iterable(self._wire.convert_all(request.messages)))
        messages = list(map(_FIRST, converted))
        if "|user|user|" in f"|{'|'.join(map(_ROLE, messages))}|":
            joined = _joined([converted])
            messages = [item for item, _ in joined]
            texts = [text if text is not None else to_json(item) for item, text in joined]
        else:  # nothing to merge (the usual history): all in C
            texts = list(map(_SECOND, converted))
        if request.system:
            system = {"role": "system", "content": request.system}
            messages.insert(0, system)
            texts.insert(0, to_json(system))
        body = self.build_body(request, messages=messages)
        return json_bytes(json_body(body, "messages", messages, "[" + ",".join(texts) + "]"))

    async def aclose(self) -> None:
        self._wire.clear()
        await super().aclose()

    def build_body(
        self, request: ModelRequest, *, messages: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """The request body; ``messages``: the system prompt and the request's messages
        already converted."""
        if messages is None:
            messages = []
            if request.system:
                messages.append({"role": "system", "content": request.system})
            messages.extend(convert_messages(request.messages))
        body: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.server_tools:
            check_settings("chat", None, request.server_tools, self.supports_reasoning)
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
        if request.response_format is not None:
            fmt = request.response_format
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": fmt.name, "schema": fmt.schema, "strict": fmt.strict},
            }
        if request.settings is not None:
            apply_settings("chat", body, request.settings)
        return body


_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_ROLE = itemgetter("role")


def _is_openai(base_url: str | None) -> bool:
    """OpenAI's own endpoint: no base_url, or one naming api.openai.com (OPENAI_BASE_URL is
    often set to it), where reasoning models refuse ``max_tokens``."""
    if base_url is None:
        return True
    return urlsplit(base_url).hostname == "api.openai.com"


def convert_messages(messages: list[AssistantMessage | UserMessage]) -> list[dict[str, Any]]:
    converted = ([(item, None) for item in wire_messages(message)] for message in messages)
    return [item for item, _ in _joined(converted)]


def wire_messages(message: AssistantMessage | UserMessage) -> list[dict[str, Any]]:
    """One message's wire messages, before a user turn is merged with the one before it."""
    if isinstance(message, UserMessage):
        return _user_messages(message)
    return _assistant_message(message)


def _messages_json(message: AssistantMessage | UserMessage) -> list[tuple[dict[str, Any], str]]:
    return [(item, to_json(item)) for item in wire_messages(message)]


def _joined(
    converted: Iterable[Sequence[tuple[dict[str, Any], str | None]]],
) -> list[tuple[dict[str, Any], str | None]]:
    """The messages' wire messages (each with its JSON, if known) in a row, two user turns
    in a row merged into one (without JSON: it is new)."""
    wire: list[tuple[dict[str, Any], str | None]] = []
    for items in converted:
        for item, text in items:
            if wire and item["role"] == "user" and wire[-1][0]["role"] == "user":
                wire[-1] = (_merged_user(wire[-1][0], item), None)
            else:
                wire.append((item, text))
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
    wire.update(_reasoning_back(message, has_calls=bool(calls)))
    return [wire]


def _reasoning_back(message: AssistantMessage, *, has_calls: bool) -> dict[str, Any]:
    """Reasoning the server wants back: OpenRouter's ``reasoning_details`` always (its
    signatures continue the chain), ``reasoning_content`` while tools are being called
    (Kimi, GLM and DeepSeek's thinking tool use need it; plain answers must not carry it)."""
    for block in message.content:
        if not isinstance(block, ThinkingBlock) or not block.provider_data:
            continue
        data = block.provider_data
        if data.get("provider") != PROVIDER:
            continue
        details = data.get("reasoning_details")
        if isinstance(details, list) and details:
            return {"reasoning_details": details}
        if has_calls and data.get("field") == "reasoning_content" and block.thinking:
            return {"reasoning_content": block.thinking}
    return {}


def _image(block: ImageBlock) -> dict[str, Any]:
    url = f"data:{block.media_type};base64,{block.data}"
    return {"type": "image_url", "image_url": {"url": url}}
