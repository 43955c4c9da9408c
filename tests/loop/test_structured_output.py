"""Structured output: schema normalisation, validation, the final-answer tool, re-prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from loopwright.errors import ConfigurationError
from loopwright.tools.base import SessionState, ToolContext
from loopwright.tools.structured_output import (
    MAX_STRUCTURED_OUTPUT_RETRIES,
    StructuredOutputTool,
    extract_structured,
    normalise_output_format,
    reprompt_message,
    structured_from_text,
    validate_structured,
)

COMPANY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "founded": {"type": "integer", "minimum": 1800},
        "tags": {"type": "array", "items": {"enum": ["ai", "research", "safety"]}},
    },
    "required": ["name", "founded"],
    "additionalProperties": False,
}


class Step(BaseModel):
    title: str
    complexity: int


class Plan(BaseModel):
    summary: str
    steps: list[Step]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(SessionState(tmp_path), "toolu_out")


def test_json_schema_dict_is_accepted() -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    assert fmt is not None
    assert fmt.schema == COMPANY and fmt.wrapped is False
    assert normalise_output_format(None) is None


def test_pydantic_model_class_becomes_its_json_schema() -> None:
    fmt = normalise_output_format(Plan)
    assert fmt is not None
    value = {"summary": "s", "steps": [{"title": "t", "complexity": 2}]}
    assert validate_structured(value, fmt.schema) == []
    assert validate_structured({"summary": "s", "steps": [{"title": "t"}]}, fmt.schema) != []


def test_invalid_schema_fails_at_startup_naming_the_problem() -> None:
    with pytest.raises(ConfigurationError, match="not valid JSON Schema at properties/x"):
        normalise_output_format(
            {"type": "json_schema", "schema": {"type": "object", "properties": {"x": 5}}}
        )


def test_wrong_output_format_shapes_say_what_to_pass() -> None:
    with pytest.raises(ConfigurationError, match='"type": "json_schema"'):
        normalise_output_format({"type": "text"})
    with pytest.raises(ConfigurationError, match="pydantic model class"):
        normalise_output_format("json")


def test_non_object_schema_is_wrapped_for_the_tool_and_unwrapped_on_extraction() -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": {"type": "array"}})
    assert fmt is not None and fmt.wrapped
    assert fmt.tool_schema["type"] == "object"
    assert extract_structured(fmt, {"output": [1, 2]}) == ([1, 2], [])


def test_validation_errors_carry_json_paths() -> None:
    errors = validate_structured({"founded": 1700, "tags": ["ai", "crypto"], "x": 1}, COMPANY)
    assert "at $: 'name' is a required property" in errors
    assert any(e.startswith("at $.founded: 1700 is less than the minimum") for e in errors)
    assert any(e.startswith("at $.tags[1]: 'crypto' is not one of") for e in errors)
    assert any("Additional properties" in e for e in errors)


def test_format_keyword_is_an_annotation_only() -> None:
    schema = {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}
    assert validate_structured({"email": "not-an-email"}, schema) == []


async def test_tool_accepts_a_valid_answer_first_time(ctx: ToolContext) -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    assert fmt is not None
    tool = StructuredOutputTool(fmt)
    assert tool.name == "StructuredOutput" and tool.input_schema == COMPANY
    result = await tool.call({"name": "Anthropic", "founded": 2021}, ctx)
    assert result.is_error is False
    assert extract_structured(fmt, {"name": "Anthropic", "founded": 2021}) == (
        {"name": "Anthropic", "founded": 2021},
        [],
    )


async def run_attempts(fmt: Any, attempts: list[dict[str, Any]], ctx: ToolContext) -> Any:
    """The loop's policy in miniature: each invalid attempt costs one re-prompt."""
    tool = StructuredOutputTool(fmt)
    for retries, attempt in enumerate(attempts):
        result = await tool.call(attempt, ctx)
        if not result.is_error:
            return extract_structured(fmt, attempt)[0]
        if retries + 1 > MAX_STRUCTURED_OUTPUT_RETRIES:
            break
    return "error_max_structured_output_retries"


async def test_valid_after_two_invalid_attempts(ctx: ToolContext) -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    attempts = [{"name": "A"}, {"name": "A", "founded": "2021"}, {"name": "A", "founded": 2021}]
    assert await run_attempts(fmt, attempts, ctx) == {"name": "A", "founded": 2021}


async def test_never_valid_ends_after_the_retry_limit(ctx: ToolContext) -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    attempts = [{"name": 1}] * 10
    assert await run_attempts(fmt, attempts, ctx) == "error_max_structured_output_retries"


async def test_invalid_answer_result_lists_the_errors_to_fix(ctx: ToolContext) -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    assert fmt is not None
    result = await StructuredOutputTool(fmt).call({"name": "A", "founded": "soon"}, ctx)
    assert result.is_error
    assert "at $.founded: 'soon' is not of type 'integer'" in str(result.content)
    assert "call StructuredOutput again" in str(result.content)


def test_reprompt_without_errors_asks_for_the_tool_call() -> None:
    text = reprompt_message(None, attempt=2)
    assert "without calling the StructuredOutput tool (attempt 2 of 5)" in text


def test_json_text_fallback_parses_fenced_answers() -> None:
    fmt = normalise_output_format({"type": "json_schema", "schema": COMPANY})
    assert fmt is not None
    text = 'Here it is:\n```json\n{"name": "A", "founded": 2021}\n```'
    assert structured_from_text(fmt, text) == ({"name": "A", "founded": 2021}, [])
    value, errors = structured_from_text(fmt, "no json here")
    assert value is None and "not JSON" in errors[0]
