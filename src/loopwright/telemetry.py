"""OpenTelemetry spans for runs, model calls and tool calls (optional dependency).

Spans follow OpenTelemetry's GenAI semantic conventions, which tracing backends understand
without configuration: a run is an ``invoke_agent loopwright`` span whose children are
``chat {model}`` spans (kind CLIENT: a call to a model service) and ``execute_tool {tool}``
spans, with ``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``,
``gen_ai.usage.*``, ``gen_ai.tool.name`` and friends. loopwright's own ``loopwright.*``
attributes (session id, cost, turns) ride along. Until the application sets a tracer
provider (or without ``opentelemetry-api`` at all) every function here does nothing and
costs next to nothing.

Spans are parented explicitly rather than through the "current span": the loop is an
async generator, and making a span current inside it would leak into its consumer.
"""

from __future__ import annotations

import sys
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal

_INSTRUMENTATION_NAME = "loopwright"
_tracer: Any = None

SpanKind = Literal["client", "internal"]

# GenAI semantic-convention names (https://opentelemetry.io/docs/specs/semconv/gen-ai/).
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_CREATION_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
CONVERSATION_ID = "gen_ai.conversation.id"
AGENT_NAME = "gen_ai.agent.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
ERROR_TYPE = "error.type"

AGENT_SPAN_NAME = "invoke_agent loopwright"


def chat_span_name(model: str) -> str:
    return f"chat {model}"


def tool_span_name(tool: str) -> str:
    return f"execute_tool {tool}"


def provider_name(model: object) -> str:
    """The ``gen_ai.provider.name`` of a model object, by the module that defines it:
    the well-known names for the official SDKs, ``loopwright`` for offline models."""
    module = type(model).__module__
    if module.endswith("anthropic"):
        return "anthropic"
    if "openai" in module:
        return "openai"
    return "loopwright"


Attributes = Mapping[str, str | int | float | bool | Sequence[str] | None]


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

    span = tracer.start_span(
        AGENT_SPAN_NAME,
        context=parent,
        attributes={OPERATION: "invoke_agent", AGENT_NAME: "loopwright", **_clean(attributes)},
    )
    return span, trace.set_span_in_context(span)


def end_run(span: Any, attributes: Attributes, error: str | None = None) -> None:
    if span is None:
        return
    span.set_attributes(_clean(attributes))
    if error is not None:
        from opentelemetry.trace import Status, StatusCode

        if ERROR_TYPE not in attributes:
            span.set_attributes({ERROR_TYPE: "loopwright.tool_error"})
        span.set_status(Status(StatusCode.ERROR, error))
    span.end()


@contextmanager
def child_span(
    name: str, parent: Any, attributes: Attributes, kind: SpanKind = "internal"
) -> Generator[Any]:
    """A span under ``parent`` (a context from :func:`start_run`); yields it, or None."""
    tracer = _get_tracer()
    if tracer is None:
        yield None
        return
    from opentelemetry.trace import SpanKind as OtelSpanKind

    otel_kind = OtelSpanKind.CLIENT if kind == "client" else OtelSpanKind.INTERNAL
    with tracer.start_as_current_span(
        name, context=parent, kind=otel_kind, attributes=_clean(attributes), record_exception=True
    ) as span:
        yield span


TOOL_ERROR_STATUS = "the tool returned an error result; its text is in the session transcript"


def annotate(span: Any, attributes: Attributes, error: str | None = None) -> None:
    """Add attributes (and an error status) to a span from :func:`child_span`, if any.

    The status says *that* the call failed, never what it printed: a tool's output can hold
    whatever it read (a key, a customer's data), and spans go to a collector that is not
    the transcript's owner. ``error`` is a flag: any text passed is not exported."""
    if span is None:
        return
    span.set_attributes(_clean(attributes))
    if error is not None:
        from opentelemetry.trace import Status, StatusCode

        if ERROR_TYPE not in attributes:
            span.set_attributes({ERROR_TYPE: "loopwright.tool_error"})
        span.set_status(Status(StatusCode.ERROR, TOOL_ERROR_STATUS))
