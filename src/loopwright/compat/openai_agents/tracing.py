"""``agents.tracing``."""

from loopwright.compat._openai_tracing import (
    Span,
    Trace,
    TracingProcessor,
    add_trace_processor,
    agent_span,
    custom_span,
    function_span,
    gen_span_id,
    gen_trace_id,
    get_current_trace,
    set_trace_processors,
    set_tracing_disabled,
    set_tracing_export_api_key,
    trace,
)

__all__ = [
    "Span",
    "Trace",
    "TracingProcessor",
    "add_trace_processor",
    "agent_span",
    "custom_span",
    "function_span",
    "gen_span_id",
    "gen_trace_id",
    "get_current_trace",
    "set_trace_processors",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "trace",
]
