"""One model call: the request built from the Agent and the Conversation, the work that
streams the response (deltas and retry notices go out as they arrive), and how a call
that gave no response ends the run."""

from __future__ import annotations

import time

from loopwright import telemetry
from loopwright.errors import ModelError
from loopwright.loop.steps import INTERRUPTED_BY_USER, Finish, RunState
from loopwright.loop.work import Ended, Outbox
from loopwright.messages import AssistantMessage, StreamEvent, SystemMessage
from loopwright.models.base import (
    ModelRequest,
    ModelResponse,
    RetryNotice,
    event_to_stream_dict,
)
from loopwright.session.session import Session


def context_exceeded(ended: Ended[ModelResponse | None]) -> bool:
    """The provider said the prompt is too long for the model's window."""
    failure = ended.failure
    return isinstance(failure, ModelError) and failure.kind == "context_window_exceeded"


def call_failed(ended: Ended[ModelResponse | None], interrupted: bool) -> Finish:
    """How the run ends when the call gave no response."""
    if ended.cancelled or interrupted:
        return INTERRUPTED_BY_USER
    failure = ended.failure
    if isinstance(failure, ModelError):
        return Finish("error_during_execution", None, (f"model error ({failure.kind}): {failure}",))
    if failure is None:
        return Finish(
            "error_during_execution",
            None,
            ("the model's stream ended without a complete response",),
        )
    return Finish("error_during_execution", None, (f"{type(failure).__name__}: {failure}",))


def build_request(session: Session, run: RunState) -> ModelRequest:
    agent = session.agent
    options = agent.options
    return ModelRequest(
        model=agent.model.name,
        system=agent.system_prompt,
        messages=list(session.conversation.messages),
        tools=agent.tool_specs(),
        max_tokens=run.max_tokens_override or options.max_tokens,
        effort=options.effort,
        thinking=agent.thinking(),
        task_budget=options.task_budget,
        cache_prefix_chars=len(agent.system_prompt),
        metadata={"cwd": str(session.state.cwd), "session_id": session.session_id},
        settings=options.model_settings,
        server_tools=tuple(options.server_tools),
    )


def assistant_message(session: Session, response: ModelResponse) -> AssistantMessage:
    return AssistantMessage(
        content=list(response.content),
        model=response.model,
        usage=response.usage,
        stop_reason=response.stop_reason,
        message_id=response.message_id,
        parent_tool_use_id=session.agent.parent_tool_use_id,
    )


async def ask_model(
    outbox: Outbox, *, session: Session, request: ModelRequest
) -> ModelResponse | None:
    """The work of one model call (run it with ``work.Running``): stream one response
    inside a chat span, deltas and retry notices to the outbox; the API time and the
    response's usage count in the Spend."""
    model = session.agent.model
    started = time.monotonic()
    attributes = {
        telemetry.OPERATION: "chat",
        telemetry.PROVIDER: telemetry.provider_name(model),
        telemetry.REQUEST_MODEL: model.name,
        telemetry.REQUEST_MAX_TOKENS: request.max_tokens,
        telemetry.CONVERSATION_ID: session.session_id,
        "loopwright.model": model.name,
        "loopwright.messages": len(request.messages),
    }
    span_name = telemetry.chat_span_name(model.name)
    with telemetry.child_span(span_name, session.trace_context, attributes, "client") as span:
        try:
            response = await _stream(outbox, session, request)
        finally:
            session.spend.add_api_seconds(time.monotonic() - started)
        if response is not None:
            session.spend.add_usage(response.model, response.usage)
            telemetry.annotate(span, _response_attributes(response, model.name))
        return response


async def _stream(outbox: Outbox, session: Session, request: ModelRequest) -> ModelResponse | None:
    partial_messages = session.agent.options.include_partial_messages
    response: ModelResponse | None = None
    async for event in session.agent.model.stream(request):
        if isinstance(event, ModelResponse):
            response = event
        elif isinstance(event, RetryNotice):
            outbox.put_nowait(
                SystemMessage(
                    "api_retry",
                    {
                        "attempt": event.attempt,
                        "max_retries": event.max_retries,
                        "retry_delay_ms": int(event.delay_seconds * 1000),
                        "error_status": event.status_code,
                        "error": event.error,
                    },
                )
            )
        elif partial_messages:
            payload = event_to_stream_dict(event)
            if payload is not None:
                outbox.put_nowait(
                    StreamEvent(
                        payload, session.session_id, session.agent.parent_tool_use_id, event.raw
                    )
                )
    return response


def _response_attributes(response: ModelResponse, model_name: str) -> telemetry.Attributes:
    usage = response.usage
    return {
        telemetry.RESPONSE_MODEL: response.model or model_name,
        telemetry.RESPONSE_ID: response.message_id,
        telemetry.FINISH_REASONS: [response.stop_reason or "unknown"],
        telemetry.INPUT_TOKENS: usage.input_tokens,
        telemetry.OUTPUT_TOKENS: usage.output_tokens,
        telemetry.CACHE_READ_TOKENS: usage.cache_read_input_tokens,
        telemetry.CACHE_CREATION_TOKENS: usage.cache_creation_input_tokens,
        "loopwright.stop_reason": response.stop_reason,
        "loopwright.input_tokens": usage.input_tokens,
        "loopwright.output_tokens": usage.output_tokens,
        "loopwright.cache_read_tokens": usage.cache_read_input_tokens,
    }
