"""``RunConfig``: the Runner's settings for every agent of a run (model, guardrails,
tracing, handoff filter, session callback). A run without one runs on the defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunConfig:
    model: Any = None
    model_provider: Any = None
    model_settings: Any = None
    handoff_input_filter: Any = None
    nest_handoff_history: bool = False
    input_guardrails: list[Any] | None = None
    output_guardrails: list[Any] | None = None
    tracing_disabled: bool = False
    tracing: dict[str, Any] | None = None  # {"include_task_and_turn_spans": False}
    trace_include_sensitive_data: bool = True
    workflow_name: str = "Agent workflow"
    trace_id: str | None = None
    group_id: str | None = None
    trace_metadata: dict[str, Any] | None = None
    session_input_callback: Any = None
    call_model_input_filter: Any = None
    tool_error_formatter: Any = None
    session_settings: Any = None
    extras: dict[str, Any] = field(default_factory=dict[str, Any])
