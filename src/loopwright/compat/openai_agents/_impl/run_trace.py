"""The span tree of one Runner run, as the OpenAI Agents SDK records it::

    trace "Agent workflow"            (or the trace() the run was started in)
      task                            (unless tracing={"include_task_and_turn_spans": False})
        agent "Triage"
          turn 1
            guardrail "…"             (input guardrails, first turn)
            response | generation     (one model call)
            function "tool"           (each tool call of that turn)
            handoff Triage -> Billing
        agent "Billing"
          turn 2 …

The driver calls in as the native loop goes (model call, tool call, guardrail, handoff);
parents are explicit, so spans may open and close in whichever task runs that step.
"""

from __future__ import annotations

from typing import Any

from loopwright.compat.openai_agents._impl.output import output_schema
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.compat.openai_agents._impl.tracing import (
    Span,
    Trace,
    _current_trace,  # pyright: ignore[reportPrivateUsage]
    agent_span,
    function_span,
    generation_span,
    get_current_span,
    get_current_trace,
    guardrail_span,
    handoff_span,
    response_span,
    task_span,
    tracing_disabled,
    turn_span,
)


class RunTrace:
    def __init__(self, run_config: RunConfig) -> None:
        disabled = run_config.tracing_disabled or tracing_disabled()
        # RunConfig(trace_include_sensitive_data=False): spans without inputs and outputs.
        self.include_data = run_config.trace_include_sensitive_data
        settings = run_config.tracing or {}
        self._task_and_turns = bool(settings.get("include_task_and_turn_spans", True))
        current = get_current_trace()
        self.own: Trace | None = None
        if current is None:
            self.own = Trace(
                run_config.workflow_name or "Agent workflow",
                run_config.trace_id,
                run_config.group_id,
                run_config.trace_metadata,
                disabled=disabled,
                otel=False,  # the run's own spans already reach OpenTelemetry (loopwright.run)
            )
        self.trace: Trace = current or self.own  # type: ignore[assignment]
        self.disabled = disabled or self.trace.disabled
        self.task: Span | None = None
        self._outer: Trace | Span = self.trace
        self.agent: Span | None = None
        self.agent_of: Any = None
        self.turn: Span | None = None
        self.turn_number = 0
        self._turn_has_model_call = False

    def start(self, agent: Any) -> None:
        """Open the trace (when the run has its own), the task and the first agent's span."""
        if self.own is not None:
            self.own.start()
        if self.own is None:
            self._outer = get_current_span() or self.trace
        if self._task_and_turns:
            # A run started inside a tool (an agent as a tool) hangs under that tool's span.
            parent = (get_current_span() if self.own is None else None) or self.trace
            self.task = task_span(self.trace.name, parent=parent, disabled=self.disabled)
            self.task.start()
        self._open_agent(agent)

    def current_trace(self) -> Trace:
        return self.trace

    def bind(self) -> Any:
        """Make the run's trace current (for the run's task); returns the reset token."""
        return _current_trace.set(self.trace)

    def _open_agent(self, agent: Any) -> Span:
        if self.agent is not None and self.agent_of is agent:
            return self.agent
        self._close_turn()
        if self.agent is not None:
            self.agent.finish()
        schema = output_schema(agent.output_type)
        self.agent = agent_span(
            agent.name,
            handoffs=[getattr(h, "agent_name", None) or h.name for h in agent.handoffs],
            tools=[str(getattr(t, "name", "")) for t in agent.tools],
            output_type=schema.name() if schema is not None else "str",
            parent=self.task or self._outer,
            disabled=self.disabled,
        )
        self.agent_of = agent
        self.agent.start()
        return self.agent

    def _close_turn(self) -> None:
        if self.turn is not None:
            self.turn.finish()
            self.turn = None

    def step_parent(self, agent: Any) -> Span:
        """The span a step of ``agent`` hangs under: its open turn (opened if none)."""
        parent = self._open_agent(agent)
        if not self._task_and_turns:
            return parent
        if self.turn is None:
            self.turn_number += 1
            self._turn_has_model_call = False
            self.turn = turn_span(
                self.turn_number, agent.name, parent=parent, disabled=self.disabled
            )
            self.turn.start()
        return self.turn

    def model_call(self, agent: Any, kind: str, model: str) -> Span | None:
        """Open the span of one model call (a new turn); None for a user's Model, which
        makes its own spans."""
        if self.turn is not None and self._turn_has_model_call:
            self._close_turn()
        if self.agent_of is not agent:
            self._close_turn()
        parent = self.step_parent(agent)
        self._turn_has_model_call = True
        if kind == "none":
            return None
        if kind == "response":
            span = response_span(parent=parent, disabled=self.disabled)
        else:
            span = generation_span(model=model, parent=parent, disabled=self.disabled)
        span.start()
        return span

    def function(self, agent: Any, name: str, arguments: str) -> Span:
        shown = arguments if self.include_data else None
        return function_span(name, shown, parent=self.step_parent(agent), disabled=self.disabled)

    def guardrail(self, agent: Any, name: str) -> Span:
        """A guardrail's span, for ``with``: the caller sets ``span_data.triggered``."""
        return guardrail_span(name, parent=self.step_parent(agent), disabled=self.disabled)

    def handoff(self, source: Any, target: Any) -> None:
        span = handoff_span(
            source.name, target.name, parent=self.step_parent(source), disabled=self.disabled
        )
        span.start()
        span.finish()

    def end(self, error: BaseException | None = None, failed: str | None = None) -> None:
        """Close what is open; ``error`` (an exception) or ``failed`` (why the run ended
        without an answer: max turns, a tripwire) goes on the agent span, as in that SDK."""
        self._close_turn()
        if self.agent is not None:
            message = (str(error) or type(error).__name__) if error is not None else failed
            if message is not None:
                self.agent.set_error({"message": message, "data": None})
            self.agent.finish()
            self.agent = None
        if self.task is not None:
            self.task.finish()
            self.task = None
        if self.own is not None:
            self.own.finish(error=error)


def reset_trace(token: Any) -> None:
    _current_trace.reset(token)
