"""The tracing API of the OpenAI Agents layer on OpenTelemetry spans."""

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
    Runner,
    add_trace_processor,
    custom_span,
    gen_trace_id,
    set_trace_processors,
    set_tracing_disabled,
    trace,
)
from loopwright.testing import ScriptedModel, text


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


async def test_processors_see_trace_and_span_starts_and_ends(spans: InMemorySpanExporter) -> None:
    seen: list[str] = []

    class Recorder:
        def on_trace_start(self, t: Any) -> None:
            seen.append(f"trace_start:{t.name}")

        def on_trace_end(self, t: Any) -> None:
            seen.append(f"trace_end:{t.name}")

        def on_span_start(self, s: Any) -> None:
            seen.append(f"span_start:{s.name}")

        def on_span_end(self, s: Any) -> None:
            seen.append(f"span_end:{s.name}")

        def shutdown(self) -> None: ...

        def force_flush(self) -> None: ...

    add_trace_processor(Recorder())
    with trace("W"), custom_span("inner"):
        pass

    assert seen == [
        "span_start:W",
        "trace_start:W",
        "span_start:inner",
        "span_end:inner",
        "span_end:W",
        "trace_end:W",
    ]


def test_tracing_disabled_makes_no_spans(spans: InMemorySpanExporter) -> None:
    set_tracing_disabled(True)
    with trace("Quiet"), custom_span("nothing"):
        pass

    assert spans.get_finished_spans() == ()


def test_trace_ids_have_the_sdks_shape() -> None:
    trace_id = gen_trace_id()
    assert trace_id.startswith("trace_") and len(trace_id) == 38
