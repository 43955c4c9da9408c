"""The ``@tool`` decorator: a Python function, its signature and docstring, as a tool."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_type_hints, overload

from loopwright.errors import ToolInputError
from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.context import ToolContext
from loopwright.tools.results import ToolResult

if TYPE_CHECKING:  # pydantic is loaded only when a @tool is made: start-up stays fast
    from pydantic import TypeAdapter, ValidationError

from loopwright.tools.interface import ToolBase

Handler = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class FunctionTool(ToolBase):
    """A tool made from a Python function by :func:`tool`."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    read_only: bool = False
    timeout_seconds: float | None = None
    # Validates and converts the model's input to the handler's arguments.
    adapter: TypeAdapter[Any] | None = None
    takes_dict: bool = False
    wants_context: bool = False
    # Every call waits for a person's approval (the run ends pending_approval).
    needs_approval: bool = False

    def validate(self, input: dict[str, Any]) -> dict[str, Any]:
        if self.adapter is None:
            return input
        from pydantic import ValidationError

        try:
            model = self.adapter.validate_python(input)
        except ValidationError as exc:
            raise ToolInputError(_describe_validation(exc)) from exc
        return {name: getattr(model, name) for name in type(model).model_fields}

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        arguments = self.validate(input)
        extra: dict[str, Any] = {"ctx": ctx} if self.wants_context else {}
        if self.takes_dict:
            produced = self.handler(arguments, **extra)
        else:
            produced = self.handler(**arguments, **extra)
        if inspect.isawaitable(produced):
            produced = await produced
        return to_tool_result(produced)


def to_tool_result(value: Any) -> ToolResult:
    """Accept what handlers naturally return: ToolResult, str, dicts in either SDK's shape."""
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult("")
    if isinstance(value, str):
        return ToolResult(value)
    if isinstance(value, dict) and "content" in value:
        blocks: list[TextBlock | ImageBlock] = []
        for item in value["content"]:
            if item.get("type") == "image":
                blocks.append(ImageBlock(item.get("mimeType", "image/png"), item["data"]))
            else:
                blocks.append(TextBlock(str(item.get("text", ""))))
        return ToolResult(blocks, is_error=bool(value.get("is_error") or value.get("isError")))
    import json

    return ToolResult(json.dumps(value, default=str))


def _describe_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "input"
        parts.append(f"{where}: {err['msg']}")
    fix = ". Call it again with arguments that match its input schema"
    return "invalid arguments: " + "; ".join(parts) + fix


_PARAM_DOC = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary and per-parameter descriptions from Google-style ``Args:`` sections."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    for line in lines:
        if line.strip().lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            match = _PARAM_DOC.match(line)
            if match:
                params[match.group(1)] = match.group(2).strip()
            elif line.strip() and not line.startswith((" ", "\t")):
                in_args = False
        if not in_args and line.strip():
            summary.append(line.strip())
    return " ".join(summary), params


def _from_function(
    fn: Handler,
    name: str | None,
    description: str | None,
    schema: dict[str, Any] | None,
    read_only: bool,
    timeout: float | None,
) -> FunctionTool:
    signature = inspect.signature(fn)
    hints = get_type_hints(fn)
    wants_context = "ctx" in signature.parameters
    summary, param_docs = _parse_docstring(fn.__doc__ or "")
    tool_name = name or fn.__name__
    tool_description = description or summary or tool_name
    if schema is not None:
        return FunctionTool(
            tool_name,
            tool_description,
            schema,
            fn,
            read_only,
            timeout,
            takes_dict=True,
            wants_context=wants_context,
        )
    from pydantic import Field

    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if pname == "ctx":
            continue
        annotation = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default

        fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
    from pydantic import TypeAdapter, create_model

    model = create_model(f"{tool_name}_input", **fields)
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    generated = adapter.json_schema()
    generated.pop("title", None)
    for prop in generated.get("properties", {}).values():
        prop.pop("title", None)
    return FunctionTool(
        tool_name,
        tool_description,
        generated,
        fn,
        read_only,
        timeout,
        adapter=adapter,
        wants_context=wants_context,
    )


@overload
def tool(fn: Handler, /) -> FunctionTool: ...


@overload
def tool(
    name: str | None = None,
    description: str | None = None,
    input_schema: dict[str, Any] | None = None,
    *,
    read_only: bool = False,
    timeout: float | None = None,
    needs_approval: bool = False,
) -> Callable[[Handler], FunctionTool]: ...


def tool(
    name: Handler | str | None = None,
    description: str | None = None,
    input_schema: dict[str, Any] | None = None,
    *,
    read_only: bool = False,
    timeout: float | None = None,
    needs_approval: bool = False,
) -> FunctionTool | Callable[[Handler], FunctionTool]:
    """Make a function a tool.

    ``@tool`` alone derives the schema from type hints and the docstring; ``@tool(name,
    description, schema)`` uses an explicit JSON schema (the handler then gets one dict).
    A parameter named ``ctx`` receives the :class:`ToolContext`. ``needs_approval``: every
    call waits for a person (the run ends ``pending_approval``; see Options.approvals).
    """
    if callable(name):
        return _from_function(name, None, None, None, read_only, timeout)
    tool_name = name

    def decorate(fn: Handler) -> FunctionTool:
        made = _from_function(fn, tool_name, description, input_schema, read_only, timeout)
        return dataclasses.replace(made, needs_approval=True) if needs_approval else made

    return decorate


async def run_blocking(fn: Callable[..., Any], *args: Any) -> Any:
    """Run blocking file-system work off the event loop."""
    return await asyncio.to_thread(fn, *args)
