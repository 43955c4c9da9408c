"""The tracing API of the OpenAI Agents SDK: traces, spans with typed span data, and the
processors that receive them in that SDK's order (``on_trace_start``, then each span's
``on_span_start`` / ``on_span_end`` nested, then ``on_trace_end``).

A Runner run records that SDK's span tree (see ``run_trace``). As before,
``trace("workflow")`` and ``custom_span`` are also OpenTelemetry spans, made current for
the code inside them, so the ``loopwright.run`` spans of the runs started there become
their children; without an OpenTelemetry tracer provider nothing is exported.
``set_tracing_disabled(True)`` (or ``OPENAI_AGENTS_DISABLE_TRACING=1``) turns it all off.
"""

from __future__ import annotations

import abc
import os
import uuid
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypedDict

from loopwright import telemetry
from loopwright.compat.openai_agents._impl.span_data import (
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    MCPListToolsSpanData,
    ResponseSpanData,
    SpanData,
    TaskSpanData,
    TurnSpanData,
)

_processors: list[TracingProcessor] = []
_current_trace: ContextVar[Trace | None] = ContextVar("openai_current_trace", default=None)
_current_span: ContextVar[Span | None] = ContextVar("openai_current_span", default=None)


class _Switch:
    disabled = os.environ.get("OPENAI_AGENTS_DISABLE_TRACING", "").lower() in ("1", "true")


class TracingProcessor(abc.ABC):
    """Receives every trace and span as it starts and ends (``add_trace_processor``)."""

    @abc.abstractmethod
    def on_trace_start(self, trace: Trace) -> None: ...

    @abc.abstractmethod
    def on_trace_end(self, trace: Trace) -> None: ...

    @abc.abstractmethod
    def on_span_start(self, span: Span) -> None: ...

    @abc.abstractmethod
    def on_span_end(self, span: Span) -> None: ...

    def shutdown(self) -> None:
        return None

    def force_flush(self) -> None:
        return None


class SpanError(TypedDict):
    message: str
    data: dict[str, Any] | None


def gen_trace_id() -> str:
    return f"trace_{uuid.uuid4().hex}"


def gen_span_id() -> str:
    return f"span_{uuid.uuid4().hex[:24]}"


def gen_group_id() -> str:
    return f"group_{uuid.uuid4().hex[:24]}"


def set_tracing_disabled(disabled: bool) -> None:
    _Switch.disabled = disabled


def tracing_disabled() -> bool:
    return _Switch.disabled


def add_trace_processor(processor: TracingProcessor) -> None:
    _processors.append(processor)


def set_trace_processors(processors: list[TracingProcessor]) -> None:
    _processors[:] = list(processors)


def set_tracing_export_api_key(api_key: str) -> None:
    """Traces go to processors and OpenTelemetry here, never to OpenAI's trace viewer."""


def flush_traces() -> None:
    for processor in list(_processors):
        processor.force_flush()


def get_current_trace() -> Trace | None:
    return _current_trace.get()


def get_current_span() -> Span | None:
    return _current_span.get()


def _now() -> str:
    return datetime.now(UTC).isoformat()


class _OtelSpan:
    """An OpenTelemetry span made current while open (nothing when OTel is not set up)."""

    def __init__(self, name: str, attributes: dict[str, Any]) -> None:
        self._name = name
        self._attributes = {
            k: v for k, v in attributes.items() if isinstance(v, str | int | float | bool)
        }
        self._manager: AbstractContextManager[Any] | None = None

    def start(self) -> None:
        tracer = telemetry._get_tracer()  # pyright: ignore[reportPrivateUsage]
        if tracer is not None:
            manager = tracer.start_as_current_span(self._name, attributes=self._attributes)
            manager.__enter__()
            self._manager = manager

    def end(self, error: BaseException | None) -> None:
        if self._manager is not None:
            manager, self._manager = self._manager, None
            manager.__exit__(type(error) if error else None, error, None)


class Span:
    """A unit of work inside a trace; ``span_data`` says what kind (AgentSpanData…)."""

    def __init__(
        self,
        trace_id: str,
        span_data: SpanData,
        parent_id: str | None = None,
        span_id: str | None = None,
        disabled: bool = False,
        otel: bool = False,
    ) -> None:
        self.trace_id = trace_id
        self.span_data = span_data
        self.parent_id = parent_id
        self.span_id = span_id or gen_span_id()
        self.disabled = disabled
        self.started_at: str | None = None
        self.ended_at: str | None = None
        self.error: SpanError | None = None
        self._otel = (
            _OtelSpan(_otel_name(span_data), {"loopwright.span_id": self.span_id}) if otel else None
        )
        self._token: Token[Span | None] | None = None

    def start(self, mark_as_current: bool = False) -> None:
        if self.started_at is not None:
            return
        self.started_at = _now()
        if mark_as_current:
            self._token = _current_span.set(self)
        if self.disabled:
            return
        if self._otel is not None:
            self._otel.start()
        for processor in list(_processors):
            processor.on_span_start(self)

    def finish(self, reset_current: bool = False, error: BaseException | None = None) -> None:
        if self.ended_at is not None:
            return
        self.ended_at = _now()
        if reset_current and self._token is not None:
            _current_span.reset(self._token)
            self._token = None
        if self.disabled:
            return
        if self._otel is not None:
            self._otel.end(error)
        for processor in list(_processors):
            processor.on_span_end(self)

    def set_error(self, error: SpanError) -> None:
        self.error = error

    def export(self) -> dict[str, Any] | None:
        return {
            "object": "trace.span",
            "id": self.span_id,
            "trace_id": self.trace_id,
            "parent_id": self.parent_id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "span_data": self.span_data.export(),
            "error": self.error,
        }

    def __enter__(self) -> Span:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is not None and self.error is None:
            self.set_error({"message": str(exc) or type(exc).__name__, "data": None})
        self.finish(reset_current=True, error=exc)


def _otel_name(data: SpanData) -> str:
    return str(getattr(data, "name", None) or data.type)


class Trace:
    """One workflow: every run and span started inside it belongs to it."""

    def __init__(
        self,
        name: str,
        trace_id: str | None = None,
        group_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        disabled: bool = False,
        otel: bool = True,
    ) -> None:
        self.name = name
        self.trace_id = trace_id or gen_trace_id()
        self.group_id = group_id
        self.metadata = metadata
        self.disabled = disabled
        self._otel = _OtelSpan(name, self._attributes()) if otel else None
        self._token: Token[Trace | None] | None = None
        self._started = False

    def _attributes(self) -> dict[str, Any]:
        data = {"loopwright.trace_id": self.trace_id, "loopwright.group_id": self.group_id}
        return {k: v for k, v in data.items() if v}

    @property
    def workflow_name(self) -> str:
        return self.name

    def start(self, mark_as_current: bool = False) -> None:
        if self._started:
            return
        self._started = True
        if mark_as_current:
            self._token = _current_trace.set(self)
        if self.disabled:
            return
        for processor in list(_processors):
            processor.on_trace_start(self)
        if self._otel is not None:
            self._otel.start()

    def finish(self, reset_current: bool = False, error: BaseException | None = None) -> None:
        if not self._started:
            return
        self._started = False
        if not self.disabled:
            if self._otel is not None:
                self._otel.end(error)
            for processor in list(_processors):
                processor.on_trace_end(self)
        if reset_current and self._token is not None:
            _current_trace.reset(self._token)
            self._token = None

    def export(self) -> dict[str, Any] | None:
        return {
            "object": "trace",
            "id": self.trace_id,
            "workflow_name": self.name,
            "group_id": self.group_id,
            "metadata": self.metadata,
        }

    def __enter__(self) -> Trace:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.finish(reset_current=True, error=exc)


def trace(
    workflow_name: str,
    trace_id: str | None = None,
    group_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    disabled: bool = False,
) -> Trace:
    return Trace(workflow_name, trace_id, group_id, metadata, disabled=disabled or _Switch.disabled)


def _span(
    data: SpanData,
    parent: Trace | Span | None,
    disabled: bool,
    span_id: str | None = None,
    otel: bool = False,
) -> Span:
    """A span under ``parent`` (else the current span, else the current trace); outside
    any trace it records nothing, as in that SDK."""
    chosen = parent if parent is not None else (_current_span.get() or _current_trace.get())
    if chosen is None:
        return Span("no-op", data, disabled=True)
    if isinstance(chosen, Trace):
        return Span(chosen.trace_id, data, None, span_id, disabled or chosen.disabled, otel)
    return Span(chosen.trace_id, data, chosen.span_id, span_id, disabled or chosen.disabled, otel)


def custom_span(
    name: str,
    data: dict[str, Any] | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(CustomSpanData(name, dict(data or {})), parent, disabled, span_id, otel=True)


def agent_span(
    name: str,
    handoffs: list[str] | None = None,
    tools: list[str] | None = None,
    output_type: str | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(AgentSpanData(name, handoffs, tools, output_type), parent, disabled, span_id)


def task_span(
    name: str,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(TaskSpanData(name), parent, disabled, span_id)


def turn_span(
    turn: int,
    agent_name: str,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(TurnSpanData(turn, agent_name), parent, disabled, span_id)


def function_span(
    name: str,
    input: str | None = None,
    output: str | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(FunctionSpanData(name, input, output), parent, disabled, span_id)


def generation_span(
    input: Any = None,
    output: Any = None,
    model: str | None = None,
    model_config: dict[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    data = GenerationSpanData(input, output, model, model_config, usage)
    return _span(data, parent, disabled, span_id)


def response_span(
    response: Any = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(ResponseSpanData(response), parent, disabled, span_id)


def handoff_span(
    from_agent: str | None = None,
    to_agent: str | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(HandoffSpanData(from_agent, to_agent), parent, disabled, span_id)


def guardrail_span(
    name: str,
    triggered: bool = False,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(GuardrailSpanData(name, triggered), parent, disabled, span_id)


def mcp_tools_span(
    server: str | None = None,
    result: list[str] | None = None,
    span_id: str | None = None,
    parent: Trace | Span | None = None,
    disabled: bool = False,
) -> Span:
    return _span(MCPListToolsSpanData(server, result), parent, disabled, span_id)
