"""OpenTelemetry spans for runs, model calls and tool calls (optional dependency).

Once the application has set an OpenTelemetry tracer provider, every run is a
``loopwright.run`` span whose children are ``loopwright.model_call`` and ``loopwright.tool``
spans. Until then (or without ``opentelemetry-api`` at all) every function here does
nothing and costs next to nothing.

Spans are parented explicitly rather than through the "current span": the loop is an
async generator, and making a span current inside it would leak into its consumer.
"""

from __future__ import annotations

import sys
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from typing import Any

_INSTRUMENTATION_NAME = "loopwright"
_tracer: Any = None

Attributes = Mapping[str, str | int | float | bool | None]


def _get_tracer() -> Any:
    """The tracer, or None while there is nothing to report to.

    Until the application sets a tracer provider the API hands out a proxy whose spans
    record nothing; skipping them then keeps the per-turn cost at zero.
    """
    global _tracer
    # An application that set a tracer provider has imported the API already; looking in
    # sys.modules instead of importing keeps ~10 ms off every start-up that does not trace.
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return None
    if _tracer is None:
        _tracer = trace.get_tracer(_INSTRUMENTATION_NAME)
    return _tracer


def _clean(attributes: Attributes) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if value is not None}


def start_run(attributes: Attributes, parent: Any = None) -> tuple[Any, Any]:
    """Start a run span (not made current) under ``parent`` (a subagent's parent run);
    returns (span, context for its children)."""
    tracer = _get_tracer()
    if tracer is None:
        return None, None
    from opentelemetry import trace

    span = tracer.start_span("loopwright.run", context=parent, attributes=_clean(attributes))
    return span, trace.set_span_in_context(span)


def end_run(span: Any, attributes: Attributes, error: str | None = None) -> None:
    if span is None:
        return
    span.set_attributes(_clean(attributes))
    if error is not None:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, error))
    span.end()


@contextmanager
def child_span(name: str, parent: Any, attributes: Attributes) -> Generator[Any]:
    """A span under ``parent`` (a context from :func:`start_run`); yields it, or None."""
    tracer = _get_tracer()
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(
        name, context=parent, attributes=_clean(attributes), record_exception=True
    ) as span:
        yield span


def annotate(span: Any, attributes: Attributes, error: str | None = None) -> None:
    """Add attributes (and an error status) to a span from :func:`child_span`, if any."""
    if span is None:
        return
    span.set_attributes(_clean(attributes))
    if error is not None:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, error))
