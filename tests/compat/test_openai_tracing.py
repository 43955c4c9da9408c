"""The tracing API of the OpenAI Agents layer on OpenTelemetry spans."""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from loopwright import telemetry
from loopwright.compat.openai_agents import (
    Agent,
    AgentSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailFunctionOutput,
    HandoffSpanData,
    RunConfig,
    Runner,
    Span,
    Trace,
    TracingProcessor,
    TurnSpanData,
    add_trace_processor,
    custom_span,
    function_tool,
    gen_trace_id,
    input_guardrail,
    set_trace_processors,
    set_tracing_disabled,
    trace,
)
from loopwright.testing import ScriptedModel, text, tool_call


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(otel_trace, "_TRACER_PROVIDER", provider)
    monkeypatch.setattr(telemetry, "_tracer", provider.get_tracer("loopwright"))
    yield exporter
    set_trace_processors([])
    set_tracing_disabled(False)


async def test_runs_inside_a_trace_are_children_of_its_span(spans: InMemorySpanExporter) -> None:
    agent = Agent(name="A", model=ScriptedModel([text("one"), text("two")]))
    with trace("Workflow", trace_id=gen_trace_id()):
        await Runner.run(agent, "first")
        with custom_span("step"):
            await Runner.run(agent, "second")

    finished = {s.name: s for s in spans.get_finished_spans()}
    workflow = finished["Workflow"]
    runs = [s for s in spans.get_finished_spans() if s.name == telemetry.AGENT_SPAN_NAME]
    assert len(runs) == 2
    assert runs[0].parent is not None and runs[0].parent.span_id == workflow.context.span_id
    assert runs[1].parent is not None and runs[1].parent.span_id == finished["step"].context.span_id


class Recorder(TracingProcessor):
    """Records what a tracing vendor's processor would see, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.events.append(("trace_start", trace))

    def on_trace_end(self, trace: Trace) -> None:
        self.events.append(("trace_end", trace))

    def on_span_start(self, span: Span) -> None:
        self.events.append(("span_start", span))

    def on_span_end(self, span: Span) -> None:
        self.events.append(("span_end", span))

    def label(self, span: Span) -> str:
        data = span.span_data
        name = getattr(data, "name", None)
        if isinstance(data, TurnSpanData):
            name = data.turn
        if isinstance(data, HandoffSpanData):
            name = f"{data.from_agent}->{data.to_agent}"
        return f"{data.type}:{name}" if name is not None else data.type

    def tree(self) -> list[str]:
        """The spans as an indented outline, in start order (parents by parent_id)."""
        depth: dict[str, int] = {}
        lines: list[str] = []
        for kind, span in self.events:
            if kind != "span_start":
                continue
            level = depth.get(span.parent_id, 0) + 1 if span.parent_id else 1
            depth[span.span_id] = level
            lines.append("  " * (level - 1) + self.label(span))
        return lines

    def order(self) -> list[str]:
        out: list[str] = []
        for kind, item in self.events:
            out.append(f"{kind}:{item.name if isinstance(item, Trace) else self.label(item)}")
        return out

    def shutdown(self) -> None: ...

    def force_flush(self) -> None: ...


@pytest.fixture
def recorder(spans: InMemorySpanExporter) -> Recorder:
    recorder = Recorder()
    add_trace_processor(recorder)
    return recorder


async def test_processors_see_trace_and_span_starts_and_ends_in_order(recorder: Recorder) -> None:
    with trace("W"), custom_span("inner"):
        pass

    assert recorder.order() == [
        "trace_start:W",
        "span_start:custom:inner",
        "span_end:custom:inner",
        "trace_end:W",
    ]


@function_tool
def lookup(city: str) -> str:
    """Look a city up."""
    with custom_span("inside the tool"):
        return f"{city}: sunny"


async def test_a_run_records_the_sdks_span_tree(recorder: Recorder) -> None:
    billing = Agent(name="Billing", model=ScriptedModel([text("paid")]))

    @input_guardrail
    def polite(context: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    triage = Agent(
        name="Triage",
        model=ScriptedModel(
            [tool_call("lookup", city="Oslo"), tool_call("transfer_to_billing"), text("x")]
        ),
        tools=[lookup],
        handoffs=[billing],
        input_guardrails=[polite],
    )

    result = await Runner.run(triage, "pay my bill")

    assert result.final_output == "paid"
    # The tree that SDK documents: trace > task > agent > turn > generation/function/
    # guardrail/handoff spans, a new agent span after the handoff.
    assert recorder.tree() == [
        "task:Agent workflow",
        "  agent:Triage",
        "    turn:1",
        "      guardrail:polite",
        "      generation",
        "      function:lookup",
        "        custom:inside the tool",
        "    turn:2",
        "      generation",
        "      handoff:Triage->Billing",
        "  agent:Billing",
        "    turn:3",
        "      generation",
    ]
    order = recorder.order()
    assert order[0] == "trace_start:Agent workflow" and order[-1] == "trace_end:Agent workflow"
    starts = [e for e in order if e.startswith("span_start")]
    ends = [e for e in order if e.startswith("span_end")]
    assert len(starts) == len(ends) == 13
    assert order.index("span_end:agent:Triage") < order.index("span_start:agent:Billing")


async def test_span_data_is_typed_and_exports_as_the_sdk_does(recorder: Recorder) -> None:
    agent = Agent(name="A", model=ScriptedModel([tool_call("lookup", city="Rome"), text("ok")]))
    agent.tools.append(lookup)

    await Runner.run(agent, "go")

    ended = [s for kind, s in recorder.events if kind == "span_end"]
    by_type = {s.span_data.type: s for s in ended}
    assert isinstance(by_type["agent"].span_data, AgentSpanData)
    assert by_type["agent"].span_data.tools == ["lookup"]
    assert by_type["agent"].span_data.output_type == "str"
    function = by_type["function"].span_data
    assert isinstance(function, FunctionSpanData)
    assert (function.name, function.output) == ("lookup", "Rome: sunny")
    assert json.loads(function.input or "{}") == {"city": "Rome"}
    generation = by_type["generation"].span_data
    assert isinstance(generation, GenerationSpanData) and generation.usage is not None
    exported = by_type["function"].export()
    assert exported is not None and exported["span_data"]["type"] == "function"
    assert all(s.trace_id.startswith("trace_") for s in ended)


async def test_runs_inside_a_user_trace_share_it(recorder: Recorder) -> None:
    agent = Agent(name="A", model=ScriptedModel([text("one"), text("two")]))
    with trace("Joke workflow") as workflow:
        await Runner.run(agent, "first")
        await Runner.run(agent, "second")

    traces = [t for kind, t in recorder.events if kind == "trace_start"]
    assert traces == [workflow]
    tasks = [
        s for kind, s in recorder.events if kind == "span_start" and s.span_data.type == "task"
    ]
    assert len(tasks) == 2 and all(t.trace_id == workflow.trace_id for t in tasks)


async def test_run_config_can_drop_task_and_turn_spans(recorder: Recorder) -> None:
    agent = Agent(name="A", model=ScriptedModel([text("hi")]))

    await Runner.run(
        agent, "go", run_config=RunConfig(tracing={"include_task_and_turn_spans": False})
    )

    assert recorder.tree() == ["agent:A", "  generation"]


async def test_a_disabled_run_reaches_no_processor(recorder: Recorder) -> None:
    agent = Agent(name="A", model=ScriptedModel([text("hi")]))

    await Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True))

    assert recorder.events == []


def test_tracing_disabled_makes_no_spans(spans: InMemorySpanExporter) -> None:
    set_tracing_disabled(True)
    with trace("Quiet"), custom_span("nothing"):
        pass

    assert spans.get_finished_spans() == ()


def test_trace_ids_have_the_sdks_shape() -> None:
    trace_id = gen_trace_id()
    assert trace_id.startswith("trace_") and len(trace_id) == 38


async def test_spans_leave_out_data_when_sensitive_data_is_off(recorder: Recorder) -> None:
    agent = Agent(name="A", model=ScriptedModel([tool_call("lookup", city="Rome"), text("ok")]))
    agent.tools.append(lookup)

    await Runner.run(agent, "go", run_config=RunConfig(trace_include_sensitive_data=False))

    ended = {s.span_data.type: s.span_data for kind, s in recorder.events if kind == "span_end"}
    function, generation = ended["function"], ended["generation"]
    assert isinstance(function, FunctionSpanData) and isinstance(generation, GenerationSpanData)
    assert (function.input, function.output) == (None, None)
    assert (generation.input, generation.output) == (None, None)
    assert generation.usage is not None


async def test_a_run_past_max_turns_marks_its_agent_span(recorder: Recorder) -> None:
    from loopwright.compat.openai_agents import MaxTurnsExceeded

    script = [tool_call("lookup", city="A"), tool_call("lookup", city="B"), text("late")]
    agent = Agent(name="A", model=ScriptedModel(script), tools=[lookup])

    with pytest.raises(MaxTurnsExceeded):
        await Runner.run(agent, "go", max_turns=2)

    (agent_span,) = [
        s for k, s in recorder.events if k == "span_end" and s.span_data.type == "agent"
    ]
    assert agent_span.error == {"message": "Max turns exceeded", "data": None}
    assert recorder.order()[-1] == "trace_end:Agent workflow"
