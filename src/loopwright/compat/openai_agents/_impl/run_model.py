"""An agent's model as a Runner run calls it: the LLM hooks, the run's usage and raw
responses, the model's span, and native structured output where the model has it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from loopwright.compat.openai_agents._impl.hook_calls import LifecycleHooks
from loopwright.compat.openai_agents._impl.items import ModelResponse, message_items
from loopwright.compat.openai_agents._impl.model_bridge import SdkModelBridge
from loopwright.compat.openai_agents._impl.output import response_format_of
from loopwright.compat.openai_agents._impl.response_log import ResponseLog
from loopwright.compat.openai_agents._impl.run_trace import RunTrace
from loopwright.compat.openai_agents._impl.span_data import GenerationSpanData, ResponseSpanData
from loopwright.compat.openai_agents._impl.tracing import Span
from loopwright.models.base import Model, ModelEvent, ModelRequest, ModelWrapper
from loopwright.models.base import ModelResponse as NativeResponse


@dataclass(frozen=True, slots=True)
class ModelScope:
    """What a run's model calls report to: the hooks, the trace, the response log."""

    hooks: LifecycleHooks
    trace: RunTrace
    responses: ResponseLog


class RunModel(ModelWrapper):
    """The agent's model, with the run's usage, raw responses and LLM hooks around it."""

    def __init__(self, inner: Any, agent: Any, scope: ModelScope) -> None:
        self._inner = inner
        self._agent = agent
        self._scope = scope

    @property
    def wrapped(self) -> Model:
        return self._inner

    @property
    def answers_in_json(self) -> bool:
        """Whether this model takes an ``output_type`` natively (a JSON-schema answer) rather
        than through loopwright's StructuredOutput tool."""
        # The provider modules load when a run uses one (start-up: ~20 ms of HTTP path).
        from loopwright.compat.openai_agents._impl.litellm import LitellmNative
        from loopwright.models.openai_chat import OpenAIChatModel
        from loopwright.models.openai_responses import OpenAIResponsesModel

        natives = SdkModelBridge | OpenAIChatModel | OpenAIResponsesModel | LitellmNative
        return isinstance(self._inner, natives)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        scope, agent = self._scope, self._agent
        if self.answers_in_json and request.response_format is None:
            request = dataclasses.replace(request, response_format=response_format_of(agent))
        items = [i for m in request.messages for i in message_items(m)]
        context = scope.hooks.context
        await scope.hooks.both(agent, "on_llm_start", context, agent, request.system, items)
        span = scope.trace.model_call(agent, self._span_kind(), self.name)
        include = scope.trace.include_data
        if include and span is not None and isinstance(span.span_data, GenerationSpanData):
            span.span_data.input = items
        try:
            async for event in self._inner.stream(request):
                if isinstance(event, NativeResponse):
                    response = scope.responses.record(event)
                    _fill_model_span(span, response, include)
                    await scope.hooks.both(agent, "on_llm_end", context, agent, response)
                yield event
        except BaseException as exc:
            if span is not None:
                span.set_error({"message": str(exc) or type(exc).__name__, "data": None})
            raise
        finally:
            if span is not None:
                span.finish()

    def _span_kind(self) -> str:
        """That SDK's span for this model: a Responses model makes a response span, a
        user's Model its own spans, any other a generation span."""
        from loopwright.models.openai_responses import OpenAIResponsesModel  # start-up

        if isinstance(self._inner, SdkModelBridge):
            return "none"
        return "response" if isinstance(self._inner, OpenAIResponsesModel) else "generation"


def _fill_model_span(span: Span | None, response: ModelResponse, include_data: bool) -> None:
    if span is None:
        return
    usage = {
        "input_tokens": response.usage.input_tokens,
        "output_tokens": response.usage.output_tokens,
    }
    data = span.span_data
    if isinstance(data, GenerationSpanData):
        data.output = response.to_input_items() if include_data else None
        data.usage = usage
    elif isinstance(data, ResponseSpanData):
        data.response = response
        data.usage = usage
