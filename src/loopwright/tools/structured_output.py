"""Structured output: the final answer as JSON that matches the user's schema.

The model delivers its answer by calling the ``StructuredOutput`` tool, whose input schema
is the user's schema, so every provider with tool calling can do it. The tool itself
validates (jsonschema), so an invalid attempt comes back to the model as an error result
listing what to fix. The loop's side:

* add ``StructuredOutputTool(fmt)`` to the tools; after each batch, a successful call
  (``extract_structured(fmt, tool_use.input)`` returns no errors) ends the run with
  ``structured_output`` = the value;
* when the model ends its turn without a valid call, send ``reprompt_message(errors)``
  as a user message — at most 5 times, then ``error_max_structured_output_retries``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from loopwright.errors import ConfigurationError
from loopwright.tools.base import ToolBase, ToolContext, ToolResult

STRUCTURED_OUTPUT_TOOL_NAME = "StructuredOutput"
MAX_STRUCTURED_OUTPUT_RETRIES = 5
_MAX_REPORTED_ERRORS = 20
# A non-object schema is wrapped under this key: tool inputs must be JSON objects.
_WRAP_KEY = "output"


@dataclass(frozen=True, slots=True)
class OutputFormat:
    """A normalised ``output_format``: the user's schema and the tool schema that carries it."""

    schema: dict[str, Any]
    wrapped: bool = False
    type: Literal["json_schema"] = "json_schema"

    @property
    def tool_schema(self) -> dict[str, Any]:
        if not self.wrapped:
            return self.schema
        return {
            "type": "object",
            "properties": {_WRAP_KEY: self.schema},
            "required": [_WRAP_KEY],
            "additionalProperties": False,
        }


def normalise_output_format(fmt: Any) -> OutputFormat | None:
    """Accept ``{"type": "json_schema", "schema": {...}}``, a pydantic model class, an
    OutputFormat, or None; raise ConfigurationError saying what is wrong with anything else."""
    if fmt is None or isinstance(fmt, OutputFormat):
        return fmt
    schema: Any
    if isinstance(fmt, type) and hasattr(fmt, "model_json_schema"):
        schema = fmt.model_json_schema()  # type: ignore[attr-defined]
    elif isinstance(fmt, Mapping):
        if fmt.get("type") != "json_schema":
            raise ConfigurationError(
                'output_format: expected {"type": "json_schema", "schema": {...}}, '
                f"got type {fmt.get('type')!r}"
            )
        schema = fmt.get("schema")
        if schema is None and isinstance(fmt.get("json_schema"), Mapping):
            schema = fmt["json_schema"].get("schema")  # the OpenAI-style nesting
    else:
        raise ConfigurationError(
            "output_format: pass a pydantic model class or "
            f'{{"type": "json_schema", "schema": {{...}}}}, not {type(fmt).__name__}'
        )
    if not isinstance(schema, Mapping):
        raise ConfigurationError("output_format: 'schema' must be a JSON Schema object")
    schema = dict(schema)
    _check_schema(schema)
    return OutputFormat(schema, wrapped=schema.get("type") != "object")


def _check_schema(schema: dict[str, Any]) -> None:
    from jsonschema.exceptions import SchemaError

    try:
        _validator_class(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "(root)"
        raise ConfigurationError(
            f"output_format: the schema is not valid JSON Schema at {where}: {exc.message}"
        ) from exc


def _validator_class(schema: dict[str, Any]) -> Any:
    # Draft 7 unless the schema names its own draft ("$schema"); "format" is not enforced.
    # jsonschema is imported on use: sessions without output_format never load it.
    from jsonschema import Draft7Validator, validators

    return validators.validator_for(schema, default=Draft7Validator)


def validate_structured(value: Any, schema: dict[str, Any]) -> list[str]:
    """Every way ``value`` breaks ``schema``, as lines a model can act on (empty = valid)."""
    validator = _validator_class(schema)(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    messages = [f"at {_json_path(list(e.absolute_path))}: {e.message}" for e in errors]
    if len(messages) > _MAX_REPORTED_ERRORS:
        extra = len(messages) - _MAX_REPORTED_ERRORS
        messages = [*messages[:_MAX_REPORTED_ERRORS], f"... and {extra} more"]
    return messages


def _json_path(parts: list[Any]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def extract_structured(fmt: OutputFormat, tool_input: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """The user's value from a StructuredOutput call, and its validation errors."""
    if fmt.wrapped:
        if _WRAP_KEY not in tool_input:
            return None, [f"at $: '{_WRAP_KEY}' is a required property"]
        value = tool_input[_WRAP_KEY]
    else:
        value = dict(tool_input)
    return value, validate_structured(value, fmt.schema)


_JSON_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


def structured_from_text(fmt: OutputFormat, text: str) -> tuple[Any, list[str]]:
    """A fallback for models that answer with JSON text instead of calling the tool."""
    match = _JSON_FENCE.search(text)
    candidate = (match.group(1) if match else text).strip()
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError as exc:
        return None, [f"the answer is not JSON ({exc.msg} at line {exc.lineno})"]
    return value, validate_structured(value, fmt.schema)


def reprompt_message(errors: list[str] | None, attempt: int | None = None) -> str:
    """The user message sent when the model ended without a valid structured answer."""
    remaining = ""
    if attempt is not None:
        remaining = f" (attempt {attempt} of {MAX_STRUCTURED_OUTPUT_RETRIES})"
    if not errors:
        return (
            f"You ended your turn without calling the {STRUCTURED_OUTPUT_TOOL_NAME} tool"
            f"{remaining}. Call {STRUCTURED_OUTPUT_TOOL_NAME} now with your final answer; "
            "its input must match the tool's schema."
        )
    listed = "\n".join(f"- {error}" for error in errors)
    return (
        f"Your structured output does not match the required schema{remaining}:\n{listed}\n"
        f"Fix these problems and call {STRUCTURED_OUTPUT_TOOL_NAME} again with the "
        "complete, corrected answer."
    )


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: the schema is a dict
class StructuredOutputTool(ToolBase):
    """The final-answer tool; its input schema is the user's schema."""

    fmt: OutputFormat
    name: str = STRUCTURED_OUTPUT_TOOL_NAME
    read_only: bool = True

    @property
    def description(self) -> str:
        return (
            "Return your final answer as structured data. Call this exactly once, when the "
            "task is complete, with input that matches the schema. The run ends when the "
            "answer is valid; if it is not, you get the problems to fix."
        )

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.fmt.tool_schema

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        _, errors = extract_structured(self.fmt, input)
        if errors:
            return ToolResult.error(reprompt_message(errors))
        return ToolResult("Structured output accepted.")
