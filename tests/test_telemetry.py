"""OpenTelemetry spans: a run span with model-call and tool spans under it."""

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from loopwright import AgentDefinition, Options, run, tool
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def tracer_provider() -> Iterator[None]:
    # The global provider, for this module only (set_tracer_provider could set it once per
    # process, and a provider left behind makes every later SDK call trace); spans are
    # cleared per test.
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trace, "_TRACER_PROVIDER", provider)
        yield


@pytest.fixture(autouse=True)
def clear_spans() -> None:
    _EXPORTER.clear()


@tool(read_only=True)
def look(path: str) -> str:
    """Look at a file."""
    return f"contents of {path}"


async def test_run_model_and_tool_spans_nest() -> None:
    model = ScriptedModel([tool_call("look", path="a"), text("done")])
    result = await run(
        "go",
        Options(
            model=model,
            tools=[look],
            allowed_tools=["look"],
            setting_sources=[],
            persist_session=False,
        ),
    )
    spans = {s.name: s for s in _EXPORTER.get_finished_spans()}
    run_span = spans["invoke_agent loopwright"]
    assert run_span.attributes is not None
    assert run_span.attributes["loopwright.result"] == "success"
    assert run_span.attributes["loopwright.session_id"] == result.session_id
    models = [s for s in _EXPORTER.get_finished_spans() if s.name == "chat scripted"]
    tools = [s for s in _EXPORTER.get_finished_spans() if s.name == "execute_tool look"]
    assert len(models) == 2 and len(tools) == 1
    for child in (*models, *tools):
        assert child.parent is not None and child.parent.span_id == run_span.context.span_id
    assert tools[0].attributes is not None and tools[0].attributes["loopwright.tool"] == "look"


async def test_subagent_run_span_hangs_under_the_parent_run() -> None:
    reviewer = AgentDefinition(description="r", prompt="Review.", tools=["look"])
    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="look", subagent_type="reviewer"),
            text("fine"),
            text("done"),
        ]
    )
    await run(
        "go",
        base_options(model, tools=[look, "Agent"], agents={"reviewer": reviewer}),
    )
    runs = [s for s in _EXPORTER.get_finished_spans() if s.name == "invoke_agent loopwright"]
    assert len(runs) == 2
    child = next(s for s in runs if s.parent is not None)
    parent = next(s for s in runs if s.parent is None)
    assert child.context.trace_id == parent.context.trace_id


async def test_failed_tool_marks_its_span_as_an_error_without_its_output() -> None:
    from opentelemetry.trace import StatusCode

    @tool(read_only=True)
    def broken() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire: AKIA-secret-from-the-file")

    model = ScriptedModel([tool_call("broken"), text("done")])
    await run(
        "go",
        Options(
            model=model,
            tools=[broken],
            allowed_tools=["broken"],
            setting_sources=[],
            persist_session=False,
        ),
    )
    [span] = [s for s in _EXPORTER.get_finished_spans() if s.name == "execute_tool broken"]
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes is not None and "error.type" in span.attributes
    # The status says that it failed, not what the tool printed (which may be a secret).
    assert "AKIA" not in (span.status.description or "")
    assert "error result" in (span.status.description or "")
    exported = [str(s.to_json()) for s in _EXPORTER.get_finished_spans()]
    assert not any("AKIA-secret-from-the-file" in s for s in exported)


async def test_spans_carry_the_genai_semantic_conventions() -> None:
    from opentelemetry.trace import SpanKind

    model = ScriptedModel([tool_call("look", path="a"), text("done")])
    result = await run(
        "go",
        Options(
            model=model,
            tools=[look],
            allowed_tools=["look"],
            setting_sources=[],
            persist_session=False,
        ),
    )
    spans = _EXPORTER.get_finished_spans()
    chat = next(s for s in spans if s.name == "chat scripted")
    assert chat.kind == SpanKind.CLIENT
    assert chat.attributes is not None
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.provider.name"] == "loopwright"
    assert chat.attributes["gen_ai.request.model"] == "scripted"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 10
    assert chat.attributes["gen_ai.usage.output_tokens"] == 5
    assert tuple(chat.attributes["gen_ai.response.finish_reasons"]) == ("tool_use",)
    assert chat.attributes["gen_ai.conversation.id"] == result.session_id
    tool_span = next(s for s in spans if s.name == "execute_tool look")
    assert tool_span.kind == SpanKind.INTERNAL and tool_span.attributes is not None
    assert tool_span.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool_span.attributes["gen_ai.tool.name"] == "look"
    assert str(tool_span.attributes["gen_ai.tool.call.id"]).startswith("toolu_")
    agent = next(s for s in spans if s.name == "invoke_agent loopwright")
    assert agent.attributes is not None
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["loopwright.session_id"] == result.session_id  # extras kept
