"""How a run's final output is made: ``output_type`` schemas, ``tool_use_behavior`` and the
messages for rejected tool calls."""

from __future__ import annotations

import abc
import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from loopwright.compat.openai_agents._impl.errors import ModelBehaviorError, UserError
from loopwright.messages import ResultMessage, ToolResultBlock
from loopwright.models.base import ResponseFormat

TContext = TypeVar("TContext")


@dataclass
class StopAtTools:
    """``tool_use_behavior``: stop when one of these tools is called; its output is final."""

    stop_at_tool_names: list[str]


class AgentOutputSchemaBase(abc.ABC):
    """A custom output schema: the JSON schema the model fills, and how to read its answer."""

    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return type(self).__name__

    @abc.abstractmethod
    def json_schema(self) -> dict[str, Any]: ...

    def is_strict_json_schema(self) -> bool:
        return True

    @abc.abstractmethod
    def validate_json(self, json_str: str) -> Any: ...


class AgentOutputSchema(AgentOutputSchemaBase):
    """The schema of an ``output_type``; strict unless ``strict_json_schema=False``. A type
    that is not an object (``list[str]``…) is wrapped as ``{"response": ...}``, since
    structured output answers with a JSON object."""

    def __init__(self, output_type: type[Any] | Any, strict_json_schema: bool = True) -> None:
        self.output_type = output_type
        self._adapter = TypeAdapter(output_type)
        schema = self._adapter.json_schema()
        self._wrapped = schema.get("type") != "object" and "properties" not in schema
        if self._wrapped:
            defs = schema.pop("$defs", None)
            schema = {
                "type": "object",
                "properties": {WRAPPER_KEY: schema},
                "required": [WRAPPER_KEY],
                "additionalProperties": False,
                **({"$defs": defs} if defs else {}),
            }
        self._strict = strict_json_schema
        if strict_json_schema and not _strict_compatible(schema):
            raise UserError(
                f"the output type {getattr(output_type, '__name__', output_type)} has no strict "
                "JSON schema (it holds a mapping with free-form keys); use "
                "AgentOutputSchema(output_type, strict_json_schema=False)"
            )
        self._schema = strict_schema(schema) if strict_json_schema else schema

    def is_plain_text(self) -> bool:
        return self.output_type in (None, str)

    def name(self) -> str:
        return str(getattr(self.output_type, "__name__", self.output_type))

    def json_schema(self) -> dict[str, Any]:
        return self._schema

    def is_strict_json_schema(self) -> bool:
        return self._strict

    def validate_json(self, json_str: str) -> Any:
        try:
            if not self._wrapped:
                return self._adapter.validate_json(json_str)
            parsed = json.loads(json_str)
            if not isinstance(parsed, dict) or WRAPPER_KEY not in parsed:
                raise ModelBehaviorError(
                    f"Invalid JSON when parsing {json_str} for {self.name()}: expected an "
                    f'object with the key "{WRAPPER_KEY}"'
                )
            return self._adapter.validate_python(parsed[WRAPPER_KEY])
        except (ValidationError, json.JSONDecodeError) as exc:
            raise ModelBehaviorError(
                f"Invalid JSON when parsing {json_str} for {self.name()}; {exc}"
            ) from exc


WRAPPER_KEY = "response"
_NESTED = ("properties", "$defs", "definitions")
_LISTED = ("anyOf", "allOf", "oneOf", "prefixItems")


def strict_schema(schema: Any) -> Any:
    """The schema as OpenAI's strict mode wants it: every object closed
    (``additionalProperties: false``) with all its properties required."""
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]  # type: ignore[misc]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = dict(schema)  # type: ignore[arg-type]
    for key in _NESTED:
        if isinstance(result.get(key), dict):
            result[key] = {k: strict_schema(v) for k, v in result[key].items()}
    for key in _LISTED:
        if isinstance(result.get(key), list):
            result[key] = strict_schema(result[key])
    if isinstance(result.get("items"), dict):
        result["items"] = strict_schema(result["items"])
    if result.get("type") == "object" or "properties" in result:
        result["additionalProperties"] = False
        result["required"] = list(result.get("properties", {}))
    return result


def _strict_compatible(schema: Any) -> bool:
    if isinstance(schema, dict):
        extra = schema.get("additionalProperties")  # type: ignore[union-attr]
        if extra not in (None, False):
            return False
        return all(_strict_compatible(v) for v in schema.values())  # type: ignore[union-attr]
    if isinstance(schema, list):
        return all(_strict_compatible(v) for v in schema)  # type: ignore[union-attr]
    return True


def output_schema(output_type: Any) -> AgentOutputSchemaBase | None:
    if output_type in (None, str):
        return None
    if isinstance(output_type, AgentOutputSchemaBase):
        return None if output_type.is_plain_text() else output_type
    return AgentOutputSchema(output_type)


def output_format_for(output_type: Any) -> dict[str, Any] | None:
    schema = output_schema(output_type)
    return None if schema is None else {"type": "json_schema", "schema": schema.json_schema()}


def response_format_of(agent: Any) -> ResponseFormat | None:
    """The native structured-output request of an agent with an ``output_type``."""
    schema = output_schema(agent.output_type)
    if schema is None:
        return None
    return ResponseFormat("final_output", schema.json_schema(), schema.is_strict_json_schema())


def final_output(agent: Any, text: str | None, structured: Any) -> Any:
    schema = output_schema(agent.output_type)
    if schema is None:
        return text or ""
    if structured is None:  # answered natively: the JSON is the final text
        return schema.validate_json(text or "")
    return schema.validate_json(json.dumps(structured))


def output_of(agent: Any, result: ResultMessage) -> Any:
    return final_output(agent, result.result, result.structured_output)


# --------------------------------------------------------------------------- tool use


@dataclass
class FunctionToolResult:
    tool: Any
    output: Any
    run_item: Any = None


@dataclass
class ToolsToFinalOutputResult:
    is_final_output: bool
    final_output: Any = None


async def tool_use_stops(
    agent: Any, context: Any, outputs: Sequence[tuple[ToolResultBlock, tuple[Any, Any]]]
) -> tuple[Any] | None:
    """``(final_output,)`` when the agent's ``tool_use_behavior`` ends the run here."""
    behavior = getattr(agent, "tool_use_behavior", "run_llm_again")
    results = [FunctionToolResult(tool, raw) for _, (tool, raw) in outputs]
    if behavior == "run_llm_again":
        return None
    if behavior == "stop_on_first_tool":
        return (results[0].output,)
    if isinstance(behavior, StopAtTools):
        for result in results:
            if result.tool.name in behavior.stop_at_tool_names:
                return (result.output,)
        return None
    if isinstance(behavior, dict) and "stop_at_tool_names" in behavior:
        return await tool_use_stops(
            agent.clone(tool_use_behavior=StopAtTools(list(behavior["stop_at_tool_names"]))),
            context,
            outputs,
        )
    if callable(behavior):
        produced = behavior(context, results)
        decided: Any = await produced if inspect.isawaitable(produced) else produced
        return (decided.final_output,) if decided.is_final_output else None
    raise UserError(
        f"tool_use_behavior={behavior!r} is not one of 'run_llm_again', 'stop_on_first_tool', "
        "StopAtTools(...) or a function"
    )


@dataclass
class ToolErrorFormatterArgs(Generic[TContext]):
    kind: str
    tool_type: str
    tool_name: str
    call_id: str
    default_message: str
    run_context: Any


async def format_rejection(formatter: Any, name: str, context: Any) -> str | None:
    args = ToolErrorFormatterArgs(
        "approval_rejected", "function", name, "", "Tool execution was not approved.", context
    )
    produced = formatter(args)
    return await produced if inspect.isawaitable(produced) else produced
