"""TestModel: any agent runs offline without a script."""

from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from loopwright import Options, query, tool
from loopwright.errors import ConfigurationError
from loopwright.messages import AssistantMessage, ResultMessage, ToolUseBlock
from loopwright.models.registry import resolve_model
from loopwright.models.test_model import schema_value
from loopwright.testing import TestModel
from support import base_options

calls: list[tuple[str, Any]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    calls.append(("add", (a, b)))
    return a + b


@tool
def greet(name: str, shout: bool = False) -> str:
    """Greet someone."""
    calls.append(("greet", name))
    return f"hello {name}"


def options(model: Any, tools: list[Any], **extra: Any) -> Options:
    return base_options(model, tools=tools, **extra)


async def test_it_calls_each_offered_tool_once_then_answers_with_their_results() -> None:
    calls.clear()
    messages = [m async for m in query("go", options(TestModel(), [add, greet]))]

    assert sorted(name for name, _ in calls) == ["add", "greet"]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.result == '{"add": "0", "greet": "hello a"}'


async def test_without_tools_it_answers_at_once() -> None:
    messages = [m async for m in query("go", options(TestModel(), []))]

    assert messages[-1].result == "success (no tool calls)"  # type: ignore[union-attr]


async def test_it_answers_with_json_valid_for_the_requested_output_schema() -> None:
    class Plan(BaseModel):
        steps: list[str]
        done: bool
        priority: int

    messages = [m async for m in query("plan", options(TestModel(), [], output_format=Plan))]

    result = messages[-1]
    assert isinstance(result, ResultMessage)
    Plan.model_validate(result.structured_output)


async def test_call_tools_limits_which_tools_it_calls() -> None:
    calls.clear()
    [m async for m in query("go", options(TestModel(call_tools=["greet"]), [add, greet]))]

    assert [name for name, _ in calls] == ["greet"]


async def test_tool_call_ids_are_unique_across_turns() -> None:
    @tool
    def other(x: str) -> str:
        """Other."""
        return x

    messages = [m async for m in query("go", options(TestModel(), [add, other]))]
    ids = [
        b.id
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolUseBlock)
    ]
    assert len(ids) == len(set(ids)) == 2


@pytest.mark.parametrize(
    "schema",
    [
        {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 3}},
            "required": ["n"],
        },
        {"type": "array", "items": {"type": "string", "minLength": 4}, "minItems": 2},
        {"enum": ["red", "green"]},
        {"anyOf": [{"type": "null"}, {"type": "number"}]},
        {
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "type": "object",
            "properties": {"p": {"$ref": "#/$defs/Point"}},
            "required": ["p"],
        },
        {"type": "string", "format": "date-time"},
    ],
)
def test_generated_values_are_valid_for_their_schema(schema: dict[str, Any]) -> None:
    jsonschema.validate(schema_value(schema), schema)


def test_the_model_string_test_makes_a_test_model() -> None:
    assert isinstance(resolve_model("test"), TestModel)
    assert isinstance(resolve_model("test?call_tools=Read,Glob"), TestModel)


def test_an_unknown_test_model_option_says_what_is_supported() -> None:
    with pytest.raises(ConfigurationError, match="supported: call_tools"):
        resolve_model("test?tools=Read")
