"""``@tool`` as the reference SDK spells it: a name, a description and an input schema given
as a type mapping, a JSON schema or a class; built on loopwright's own ``tool``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from loopwright.mcp.sdk_server import SdkServerConfig
from loopwright.tools.base import FunctionTool
from loopwright.tools.base import tool as native_tool

SdkMcpTool = FunctionTool
McpSdkServerConfig = SdkServerConfig


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """MCP tool hints. Only ``readOnlyHint`` changes anything: such tools may run in parallel."""

    title: str | None = None
    readOnlyHint: bool | None = None  # camelCase: MCP names them so
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


ToolHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]]


def tool(
    name: str,
    description: str,
    input_schema: type | Mapping[str, Any],
    annotations: Any = None,
) -> Callable[[ToolHandler], FunctionTool]:
    """``@tool(name, description, input_schema)``: the handler gets one dict of arguments and
    returns ``{"content": [{"type": "text", "text": ...}]}`` (``is_error`` optional).

    ``input_schema`` is a mapping of argument names to Python types (``{"a": float}``, every
    argument required), a JSON schema, or a class (TypedDict, dataclass, pydantic model).
    """
    schema = input_json_schema(input_schema)
    read_only = bool(getattr(annotations, "readOnlyHint", False))

    def decorate(handler: ToolHandler) -> FunctionTool:
        return native_tool(name, description, schema, read_only=read_only)(handler)

    return decorate


def input_json_schema(spec: type | Mapping[str, Any]) -> dict[str, Any]:
    """The JSON schema for any of the three ways ``@tool`` accepts an input schema."""
    from pydantic import TypeAdapter

    if isinstance(spec, Mapping):
        if not spec:  # a tool without arguments still needs an object schema
            return {"type": "object", "properties": {}}
        if _is_type_mapping(spec):
            properties = {key: _type_schema(kind) for key, kind in spec.items()}
            return {"type": "object", "properties": properties, "required": list(spec)}
        return dict(spec)
    generated = TypeAdapter(spec).json_schema()
    generated.pop("title", None)
    return generated


def _is_type_mapping(spec: Mapping[str, Any]) -> bool:
    # {"type": "object", ...} has string/dict values; {"name": str} has types (or generics
    # such as list[str]). A field may itself be called "type", so look at values, not keys.
    return all(not isinstance(v, str | dict | list | bool) for v in spec.values())


def _type_schema(kind: Any) -> dict[str, Any]:
    from pydantic import TypeAdapter

    schema = TypeAdapter(kind).json_schema()
    schema.pop("title", None)
    return schema
