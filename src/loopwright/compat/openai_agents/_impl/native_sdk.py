"""``get_response`` / ``stream_response`` of the layer's own models (``OpenAIResponsesModel``,
``OpenAIChatCompletionsModel``, ``LitellmModel``): the SDK's model interface over the
loopwright provider they stand for, so code that calls a model directly — or a user's
``Model`` that wraps one — works. Input items become a ``ModelRequest``; the provider's
answer comes back as Responses output items (or stream events ending with
``response.completed``)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from openai.types.responses import Response, ResponseCompletedEvent, ResponseUsage
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from loopwright.compat.openai_agents._impl.context import Usage
from loopwright.compat.openai_agents._impl.input import to_conversation
from loopwright.compat.openai_agents._impl.items import ModelResponse, model_response
from loopwright.compat.openai_agents._impl.output import output_schema as schema_of
from loopwright.compat.openai_agents._impl.stream_events import EventTranslator
from loopwright.messages import AssistantMessage
from loopwright.models.base import (
    Model,
    ModelRequest,
    ResponseFormat,
    ToolSpec,
    event_to_stream_dict,
)
from loopwright.models.base import ModelResponse as NativeResponse


def sdk_request(
    native: Model,
    system_instructions: str | None,
    input: str | list[Any],
    model_settings: Any,
    tools: list[Any],
    output_schema: Any,
    handoffs: list[Any],
) -> ModelRequest:
    items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
    conversation = to_conversation(items)
    system = "\n\n".join([system_instructions or "", *conversation.system]).strip()
    specs = [ToolSpec(t.name, t.description, dict(t.params_json_schema)) for t in tools]
    specs += [
        ToolSpec(h.tool_name, h.tool_description, dict(h.input_json_schema)) for h in handoffs
    ]
    schema = schema_of(output_schema) if output_schema is not None else None
    response_format = (
        ResponseFormat("final_output", schema.json_schema(), schema.is_strict_json_schema())
        if schema is not None
        else None
    )
    return ModelRequest(
        model=native.name,
        system=system,
        messages=conversation.messages,
        tools=specs,
        max_tokens=getattr(model_settings, "max_tokens", None),
        effort=getattr(model_settings, "effort", None),
        response_format=response_format,
    )


def sdk_usage(response: NativeResponse) -> Usage:
    native = response.usage
    total_input = native.input_tokens + native.cache_read_input_tokens
    usage = Usage(
        requests=1,
        input_tokens=total_input,
        output_tokens=native.output_tokens,
        total_tokens=total_input + native.output_tokens,
    )
    usage.input_tokens_details.cached_tokens = native.cache_read_input_tokens
    return usage


async def _final(native: Model, request: ModelRequest) -> NativeResponse:
    try:
        async for event in native.stream(request):
            if isinstance(event, NativeResponse):
                return event
    finally:
        await native.aclose()
    raise RuntimeError(f"the model {native.name} ended its stream without a response")


async def get_response(native: Model, request: ModelRequest) -> ModelResponse:

    response = await _final(native, request)
    return model_response(response, sdk_usage(response), 1)


def _completed(response: NativeResponse, output: list[Any], sequence: int) -> Any:
    usage = sdk_usage(response)
    return ResponseCompletedEvent(
        response=Response(
            id=response.message_id or "resp_stream",
            created_at=time.time(),
            model=response.model,
            object="response",
            output=output,
            parallel_tool_calls=False,
            tool_choice="auto",
            tools=[],
            usage=ResponseUsage(
                input_tokens=usage.input_tokens,
                input_tokens_details=InputTokensDetails(
                    cached_tokens=usage.input_tokens_details.cached_tokens,
                    cache_write_tokens=response.usage.cache_creation_input_tokens,
                ),
                output_tokens=usage.output_tokens,
                output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
                total_tokens=usage.total_tokens,
            ),
        ),
        sequence_number=sequence,
        type="response.completed",
    )


async def stream_response(native: Model, request: ModelRequest) -> AsyncIterator[Any]:

    translator = EventTranslator()
    try:
        async for event in native.stream(request):
            if isinstance(event, NativeResponse):
                message = AssistantMessage(
                    event.content, model=event.model, message_id=event.message_id
                )
                for done in translator.done_events(message):
                    yield done
                output = model_response(event, sdk_usage(event), 1).output
                yield _completed(event, output, translator.sequence + 1)
                return
            payload = event_to_stream_dict(event)
            if payload is not None:
                for raw in translator.delta_events(payload):
                    yield raw
    finally:
        await native.aclose()
