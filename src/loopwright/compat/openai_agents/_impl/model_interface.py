"""The model interface of the OpenAI Agents SDK: ``Model`` (``get_response`` /
``stream_response``), ``ModelProvider`` (``get_model``) and ``ModelTracing``.

A user's ``Model`` subclass is driven by loopwright's loop through ``model_bridge``:
each model call becomes one ``get_response`` (or ``stream_response`` in a streamed run)
with the conversation as Responses input items, and its Responses output items become
loopwright content blocks again.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import AsyncIterator
from typing import Any


class ModelTracing(enum.Enum):
    DISABLED = 0
    ENABLED = 1
    ENABLED_WITHOUT_DATA = 2

    def is_disabled(self) -> bool:
        return self == ModelTracing.DISABLED

    def include_data(self) -> bool:
        return self == ModelTracing.ENABLED


class Model(abc.ABC):
    """The base interface for calling an LLM, as that SDK defines it."""

    async def close(self) -> None:
        """Release what the model holds; the default holds nothing."""
        return None

    @abc.abstractmethod
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> Any:
        """The full response (a ``ModelResponse`` with Responses output items)."""

    @abc.abstractmethod
    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> AsyncIterator[Any]:
        """Responses stream events, ending with ``response.completed``."""


class ModelProvider(abc.ABC):
    """Looks models up by name (``RunConfig(model_provider=...)``)."""

    @abc.abstractmethod
    def get_model(self, model_name: str | None) -> Any:
        """A ``Model`` (or an ``OpenAIResponsesModel`` / ``OpenAIChatCompletionsModel``)."""

    async def aclose(self) -> None:
        return None
