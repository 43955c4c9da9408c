"""Which loopwright model an agent of the OpenAI Agents layer runs on.

A model string goes through loopwright's registry ("gpt-5" → OpenAI Responses API) unless
``LOOPWRIGHT_MODEL`` replaces it; ``OpenAIChatCompletionsModel`` / ``OpenAIResponsesModel``
with their own ``AsyncOpenAI`` client become loopwright providers on that client's base URL
and key (also replaced by ``LOOPWRIGHT_MODEL`` when it is set); a loopwright Model object is
used as it is.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

from loopwright.compat._model_choice import MODEL_OVERRIDE_VARIABLE, choose_model
from loopwright.compat.openai_agents._impl import native_sdk as over_native
from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.model_interface import Model as SdkModel
from loopwright.models.base import MinimalModel, Model, adopt_model
from loopwright.models.registry import DEFAULT_OPENAI_MODEL
from loopwright.session.assemble import resolve_model


class ClientModel(SdkModel):
    """A model name served through a given ``AsyncOpenAI`` client. Runs as a loopwright
    provider; ``get_response`` / ``stream_response`` serve code that calls it directly."""

    wire = "openai"

    def __init__(self, model: str, openai_client: Any = None) -> None:
        self.model = model
        self.openai_client = openai_client

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> Any:
        native = native_model(self)
        request = over_native.sdk_request(
            native, system_instructions, input, model_settings, tools, output_schema, handoffs
        )
        return await over_native.get_response(native, request)

    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> AsyncIterator[Any]:
        native = native_model(self)
        request = over_native.sdk_request(
            native, system_instructions, input, model_settings, tools, output_schema, handoffs
        )
        return over_native.stream_response(native, request)

    def native(self) -> Model:
        client = self.openai_client
        if client is None:
            return resolve_model(f"{self.wire}:{self.model}")
        key = getattr(client, "api_key", None) or None
        base_url = str(getattr(client, "base_url", "")) or None
        # The provider modules load for the wire in use (start-up: ~20 ms of HTTP path).
        if self.wire == "openai-chat":
            from loopwright.models.openai_chat import OpenAIChatModel

            return OpenAIChatModel(self.model, api_key=key, base_url=base_url)
        from loopwright.models.openai_responses import OpenAIResponsesModel as NativeResponsesModel

        return NativeResponsesModel(self.model, api_key=key or "unused", base_url=base_url)


class OpenAIChatCompletionsModel(ClientModel):
    wire = "openai-chat"


class OpenAIResponsesModel(ClientModel):
    wire = "openai"


def native_model(spec: Any) -> Model:
    override = os.environ.get(MODEL_OVERRIDE_VARIABLE, "").strip()
    if isinstance(spec, ClientModel):
        return resolve_model(override) if override else spec.native()
    if spec is not None and not isinstance(spec, str):
        if isinstance(spec, MinimalModel):  # ours, or a user's duck-typed model
            return adopt_model(spec)
        raise UserError(
            f"model={spec!r} is not a model loopwright can run; pass a model name, an "
            "OpenAIChatCompletionsModel/OpenAIResponsesModel, or a loopwright Model"
        )
    chosen = choose_model(spec)
    if chosen is None and os.environ.get("OPENAI_API_KEY"):
        # Code written for the OpenAI SDK that names no model means OpenAI's default, even
        # when an Anthropic key (which loopwright's own default prefers) is also set.
        chosen = f"openai:{DEFAULT_OPENAI_MODEL}"
    return resolve_model(chosen)


def is_gpt_5_default() -> bool:
    return DEFAULT_OPENAI_MODEL.startswith("gpt-5")


def get_default_model() -> str:
    return DEFAULT_OPENAI_MODEL
