"""One model call: the request built from the Agent and the Conversation, the response
streamed (deltas and retry notices go out as they arrive), and how the call ended."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial

from loopwright import telemetry
from loopwright.errors import ModelError
from loopwright.loop.steps import INTERRUPTED_BY_USER, Finish, RunState
from loopwright.loop.work import Outbox, Running
from loopwright.messages import AssistantMessage, Message, StreamEvent, SystemMessage
from loopwright.models.base import (
    ModelRequest,
    ModelResponse,
    RetryNotice,
    event_to_stream_dict,
)
from loopwright.session.session import Session


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """The response, or why there is none."""

    response: ModelResponse | None
    cancelled: bool = False
    failure: BaseException | None = None

    @property
    def context_exceeded(self) -> bool:
        failure = self.failure
        return isinstance(failure, ModelError) and failure.kind == "context_window_exceeded"

    def failed(self, interrupted: bool) -> Finish:
        """How the run ends when the call gave no response."""
        if self.cancelled or interrupted:
            return INTERRUPTED_BY_USER
        failure = self.failure
        if isinstance(failure, ModelError):
            return Finish(
                "error_during_execution", None, (f"model error ({failure.kind}): {failure}",)
            )
        if failure is None:
            return Finish(
                "error_during_execution",
                None,
                ("the model's stream ended without a complete response",),
            )
        return Finish("error_during_execution", None, (f"{type(failure).__name__}: {failure}",))


async def model_turn(session: Session, run: RunState) -> AsyncIterator[Message | ModelTurn]:
    """Ask the model once; yields the stream's messages, then the ModelTurn."""
    request = build_request(session, run)
    async with Running(session, partial(_ask, session=session, request=request)) as work:
        while (message := await work.next()) is not None:
            yield message
    ended = work.ended()
    if ended.value is not None:
        session.spend.add_usage(ended.value.model, ended.value.usage)
    yield ModelTurn(ended.value, ended.cancelled, ended.failure)


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


async def _ask(outbox: Outbox, *, session: Session, request: ModelRequest) -> ModelResponse | None:
    """Stream one response inside a chat span; the API time counts in the Spend."""
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
