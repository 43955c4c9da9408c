"""``agents.extensions.models.litellm_model``: ``LitellmModel`` and ``LitellmProvider`` on the
real ``litellm`` package (the optional extra ``loopwright[litellm]``).

Each model call of loopwright's loop becomes one ``litellm.acompletion`` in Chat Completions
form (the body built by loopwright's Chat Completions provider), and the completion
becomes loopwright content blocks, so any provider LiteLLM reaches runs an agent here.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncIterator
from typing import Any

from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.model_interface import ModelProvider
from loopwright.compat.openai_agents._impl.models import ClientModel
from loopwright.messages import ContentBlock, TextBlock, ToolUseBlock, Usage
from loopwright.models.base import (
    Model,
    ModelBase,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    TextDelta,
)
from loopwright.models.openai_chat import OpenAIChatModel


def _litellm() -> Any:
    try:
        # Imported by name: litellm is an optional extra the type checker may not see.
        litellm = importlib.import_module("litellm")
    except ImportError as exc:
        raise UserError(
            "LitellmModel needs the 'litellm' package: pip install 'loopwright[litellm]'"
        ) from exc
    return litellm


# A Chat Completions model that only builds request bodies (it never opens a connection):
# litellm takes that API's body, so the model layer's translation serves here.
_BODY_ONLY_URL = "http://litellm.invalid/v1"


def chat_body_builder(model: str) -> OpenAIChatModel:
    """Bodies as a compatible server takes them: ``max_tokens`` and no reasoning knobs,
    which litellm maps per provider itself."""
    return OpenAIChatModel(
        model,
        api_key="unused",
        base_url=_BODY_ONLY_URL,
        reasoning=False,
        max_tokens_field="max_tokens",
    )


def completion_body(builder: OpenAIChatModel, request: ModelRequest) -> dict[str, Any]:
    """One ``litellm.acompletion`` call's arguments: the Chat Completions body, unstreamed."""
    body = builder.build_body(request)
    body.pop("stream", None)
    body.pop("stream_options", None)
    return body


def completion_response(completion: Any, model: str) -> ModelResponse:
    choice = completion.choices[0]
    message = choice.message
    blocks: list[ContentBlock] = []
    if message.content:
        blocks.append(TextBlock(str(message.content)))
    for call in message.tool_calls or []:
        arguments = call.function.arguments or "{}"
        try:
            parsed: Any = json.loads(arguments)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            blocks.append(ToolUseBlock(call.id, call.function.name, parsed))  # type: ignore[arg-type]
        else:
            blocks.append(ToolUseBlock(call.id, call.function.name, {}, raw_input=arguments))
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    stop = "tool_use" if message.tool_calls else "end_turn"
    if choice.finish_reason == "length":
        stop = "max_tokens"
    return ModelResponse(
        blocks,
        Usage(
            input_tokens=max(0, int(getattr(usage, "prompt_tokens", 0) or 0) - cached),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cache_read_input_tokens=cached,
        ),
        stop,
        model,
        message_id=getattr(completion, "id", None),
    )


class LitellmNative(ModelBase):
    """The loopwright model a ``LitellmModel`` runs as."""

    def __init__(self, model: str, base_url: str | None, api_key: str | None) -> None:
        self._model = model
        self._base_url = base_url
        self._api_key = api_key
        self._bodies = chat_body_builder(model)
        _litellm()  # say what to install before the run starts

    @property
    def name(self) -> str:
        return self._model

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        body = completion_body(self._bodies, request)
        if self._base_url:
            body["base_url"] = self._base_url
        if self._api_key:
            body["api_key"] = self._api_key
        completion = await _litellm().acompletion(**body)
        response = completion_response(completion, self._model)
        text = "".join(b.text for b in response.content if isinstance(b, TextBlock))
        if text:
            yield TextDelta(text)
        yield response


class LitellmModel(ClientModel):
    """Any model LiteLLM reaches (``"anthropic/claude-…"``, ``"openrouter/…"``)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        **_: Any,
    ) -> None:
        super().__init__(model)
        self.base_url = base_url
        self.api_key = api_key

    def native(self) -> Model:
        return LitellmNative(self.model, self.base_url, self.api_key)


class LitellmProvider(ModelProvider):
    def get_model(self, model_name: str | None) -> Any:
        if not model_name:
            raise UserError("LitellmProvider needs a model name such as 'anthropic/claude-…'")
        return LitellmModel(model_name)
