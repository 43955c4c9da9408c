"""The tracing API of the OpenAI Agents SDK on loopwright's OpenTelemetry spans.

``trace("workflow")`` is a span made current for the code inside it, so the
``loopwright.run`` spans of the runs started there become its children; ``custom_span`` is
a child span. Without an OpenTelemetry tracer provider nothing is exported, as with
loopwright's own spans, but registered processors (``add_trace_processor``) still see every
trace and span start and end. ``set_tracing_disabled(True)`` turns all of it off.
"""

from __future__ import annotations

import time
import uuid
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

_disabled = False
_processors: list[TracingProcessor] = []
_current_trace: ContextVar[Trace | None] = ContextVar("openai_current_trace", default=None)


class TracingProcessor(Protocol):
    def on_trace_start(self, trace: Trace) -> None: ...
    def on_trace_end(self, trace: Trace) -> None: ...
    def on_span_start(self, span: Span) -> None: ...
    def on_span_end(self, span: Span) -> None: ...
    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


def gen_trace_id() -> str:
    return f"trace_{uuid.uuid4().hex}"


def gen_span_id() -> str:
    return f"span_{uuid.uuid4().hex[:24]}"


def set_tracing_disabled(disabled: bool) -> None:
    global _disabled
    _disabled = disabled


def add_trace_processor(processor: TracingProcessor) -> None:
    _processors.append(processor)


def set_trace_processors(processors: list[TracingProcessor]) -> None:
    _processors[:] = list(processors)


def set_tracing_export_api_key(api_key: str) -> None:
    """Traces go to OpenTelemetry here, never to OpenAI's trace viewer: nothing to set."""


def get_current_trace() -> Trace | None:
    return _current_trace.get()


class _OtelSpan:
    """An OpenTelemetry span made current while open (nothing when OTel is not set up)."""

    def __init__(self, name: str, attributes: dict[str, Any]) -> None:
        self._name = name
        self._attributes = {
            k: v for k, v in attributes.items() if isinstance(v, str | int | float | bool)
        }
        self._manager: AbstractContextManager[Any] | None = None

    def start(self) -> None:
        from loopwright import telemetry

        tracer = telemetry._get_tracer()  # pyright: ignore[reportPrivateUsage]
        if tracer is not None:
            manager = tracer.start_as_current_span(self._name, attributes=self._attributes)
            manager.__enter__()
            self._manager = manager

    def end(self, error: BaseException | None) -> None:
        if self._manager is not None:
            manager, self._manager = self._manager, None
            manager.__exit__(type(error) if error else None, error, None)


@dataclass(eq=False)
class Span:
    """A unit of work inside a trace."""

    name: str
    span_data: dict[str, Any] = field(default_factory=dict[str, Any])
    trace_id: str = ""
    span_id: str = field(default_factory=gen_span_id)
    parent_id: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    error: dict[str, Any] | None = None
    disabled: bool = False
    _otel: _OtelSpan | None = None

    def start(self, mark_as_current: bool = False) -> None:
        self.started_at = time.time()
        if self.disabled:
            return
        self._otel = _OtelSpan(self.name, {"loopwright.span_id": self.span_id, **self.span_data})
        self._otel.start()
        for processor in list(_processors):
            processor.on_span_start(self)

    def finish(self, reset_current: bool = False, error: BaseException | None = None) -> None:
        self.ended_at = time.time()
        if self.disabled:
            return
        if self._otel is not None:
            self._otel.end(error)
        for processor in list(_processors):
            processor.on_span_end(self)

    def set_error(self, error: dict[str, Any]) -> None:
        self.error = error

    def export(self) -> dict[str, Any]:
        return {"id": self.span_id, "trace_id": self.trace_id, "name": self.name, **self.span_data}

    def __enter__(self) -> Span:
        self.start(mark_as_current=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.finish(reset_current=True, error=exc)


@dataclass(eq=False)
class Trace:
    """One workflow: every run and custom span started inside it hangs under it."""

    name: str
    trace_id: str = field(default_factory=gen_trace_id)
    group_id: str | None = None
    metadata: dict[str, Any] | None = None
    disabled: bool = False
    _span: Span | None = None
    _token: Token[Trace | None] | None = None

    @property
    def workflow_name(self) -> str:
        return self.name

    def start(self, mark_as_current: bool = False) -> None:
        if mark_as_current:
            self._token = _current_trace.set(self)
        if self.disabled:
            return
        data = {"loopwright.trace_id": self.trace_id, "loopwright.group_id": self.group_id}
        self._span = Span(self.name, {k: v for k, v in data.items() if v}, self.trace_id)
        self._span.start()
        for processor in list(_processors):
            processor.on_trace_start(self)

    def finish(self, reset_current: bool = False, error: BaseException | None = None) -> None:
        if not self.disabled and self._span is not None:
            self._span.finish(error=error)
            for processor in list(_processors):
                processor.on_trace_end(self)
        if reset_current and self._token is not None:
            _current_trace.reset(self._token)
            self._token = None

    def export(self) -> dict[str, Any]:
        return {"id": self.trace_id, "workflow_name": self.name, "group_id": self.group_id}

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
    return Trace(
        workflow_name,
        trace_id or gen_trace_id(),
        group_id,
        metadata,
        disabled=disabled or _disabled,
    )


def custom_span(name: str, data: dict[str, Any] | None = None, disabled: bool = False) -> Span:
    current = _current_trace.get()
    return Span(
        name,
        dict(data or {}),
        current.trace_id if current else "",
        disabled=disabled or _disabled,
    )


def agent_span(name: str, **data: Any) -> Span:
    return custom_span(f"agent: {name}", data)


def function_span(name: str, input: str | None = None, output: str | None = None) -> Span:
    return custom_span(f"function: {name}", {"input": input, "output": output})
