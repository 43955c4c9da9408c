"""Function tools of the OpenAI Agents SDK layer: ``FunctionTool``, ``function_tool`` (also
``agents.decorators.tool``) and the shapes of tool output that SDK accepts.

A ``FunctionTool`` is a loopwright Tool (name, description, input_schema, ``call``), so the
native loop runs it; it also keeps what that SDK exposes and lets code change afterwards
(``needs_approval``, ``is_enabled``, ``tool_input_guardrails``…). The Runner wraps each one
per run for approvals, hooks and tool guardrails (see ``wrappers``).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, overload

from loopwright.compat.openai_agents._impl.context import (
    RunContextWrapper,
    current_tool_context,
    takes_run_context,
    without_run_context,
)
from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.base import FunctionTool as NativeFunctionTool
from loopwright.tools.base import ToolContext as NativeToolContext
from loopwright.tools.base import ToolResult
from loopwright.tools.base import tool as native_tool

ToolFunction = Callable[..., Any]


@dataclass
class ToolOutputText:
    text: str
    type: Literal["text"] = "text"


@dataclass
class ToolOutputImage:
    image_url: str | None = None
    file_id: str | None = None
    detail: str | None = None
    type: Literal["image"] = "image"


class ToolOutputTextDict(TypedDict, total=False):
    type: Literal["text"]
    text: str


class ToolOutputImageDict(TypedDict, total=False):
    type: Literal["image"]
    image_url: str
    file_id: str
    detail: str


@dataclass(eq=False)
class FunctionTool:
    """A tool the model can call, backed by a Python function."""

    name: str
    description: str
    params_json_schema: dict[str, Any]
    on_invoke_tool: Callable[[Any, str], Awaitable[Any]]
    strict_json_schema: bool = True
    is_enabled: bool | Callable[..., Any] = True
    needs_approval: bool | Callable[..., Any] = False
    tool_input_guardrails: list[Any] | None = None
    tool_output_guardrails: list[Any] | None = None
    read_only: bool = False
    # Set for tools made from an Agent (as_tool): streamed events of the nested run go here.
    on_stream: Callable[..., Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.params_json_schema

    async def invoke(self, arguments: dict[str, Any]) -> Any:
        """The function's own return value (what ``tool_use_behavior`` functions see)."""
        return await self.on_invoke_tool(current_tool_context(), json.dumps(arguments))

    async def call(self, input: dict[str, Any], ctx: NativeToolContext) -> ToolResult:
        return tool_output_result(await self.invoke(input))


def tool_output_result(value: Any) -> ToolResult:
    """What the model sees of a tool's return value: text, or text and images."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, list) and value and all(_is_output_part(v) for v in value):
        return ToolResult([_output_block(v) for v in value])  # type: ignore[arg-type]
    if _is_output_part(value):
        return ToolResult([_output_block(value)])
    if value is None:
        return ToolResult("")
    if isinstance(value, str):
        return ToolResult(value)
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return ToolResult(str(dump()))
    if isinstance(value, dict | list | int | float | bool):
        return ToolResult(json.dumps(value, default=str))
    return ToolResult(str(value))


def _is_output_part(value: Any) -> bool:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return isinstance(value, ToolOutputText | ToolOutputImage) or (
        isinstance(value, dict) and kind in ("text", "image")
    )


def _output_block(value: Any) -> TextBlock | ImageBlock:
    def get(key: str) -> Any:
        return value.get(key) if isinstance(value, dict) else getattr(value, key, None)

    if get("type") == "text":
        return TextBlock(str(get("text") or ""))
    url = str(get("image_url") or "")
    if url.startswith("data:") and ";base64," in url:
        header, data = url.split(";base64,", 1)
        return ImageBlock(header.removeprefix("data:"), data)
    # loopwright carries images inline; an image by URL or file id reaches the model as a note.
    return TextBlock(f"[image: {url or get('file_id')}]")


# --------------------------------------------------------------------------- decorator


@overload
def function_tool(func: ToolFunction, /) -> FunctionTool: ...


@overload
def function_tool(
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: str | None = None,
    use_docstring_info: bool = True,
    failure_error_function: Any = None,
    strict_mode: bool = True,
    is_enabled: bool | Callable[..., Any] = True,
    needs_approval: bool | Callable[..., Any] = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
) -> Callable[[ToolFunction], FunctionTool]: ...


def function_tool(
    func: ToolFunction | None = None,
    /,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: str | None = None,
    use_docstring_info: bool = True,
    failure_error_function: Any = None,
    strict_mode: bool = True,
    is_enabled: bool | Callable[..., Any] = True,
    needs_approval: bool | Callable[..., Any] = False,
    tool_input_guardrails: list[Any] | None = None,
    tool_output_guardrails: list[Any] | None = None,
    timeout: float | None = None,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """A tool from a plain function: name, description and argument schema come from its
    signature, type hints and docstring (loopwright's ``@tool`` does the work)."""

    def decorate(fn: ToolFunction) -> FunctionTool:
        plain = without_run_context(fn) if takes_run_context(fn) else fn
        made = native_tool(plain)
        description = description_override
        if description is None and not use_docstring_info:
            description = made.name
        return FunctionTool(
            name=name_override or made.name,
            description=description or made.description,
            params_json_schema=made.input_schema,
            on_invoke_tool=_invoker(made),
            strict_json_schema=strict_mode,
            is_enabled=is_enabled,
            needs_approval=needs_approval,
            tool_input_guardrails=tool_input_guardrails,
            tool_output_guardrails=tool_output_guardrails,
        )

    return decorate(func) if func is not None else decorate


def _invoker(made: NativeFunctionTool) -> Callable[[Any, str], Awaitable[Any]]:
    async def invoke(context: Any, arguments: str) -> Any:
        parsed = json.loads(arguments) if arguments else {}
        validated = made.validate(parsed)
        produced = made.handler(validated) if made.takes_dict else made.handler(**validated)
        if inspect.isawaitable(produced):
            produced = await produced
        return produced

    return invoke


def renamed(tool: FunctionTool, **changes: Any) -> FunctionTool:
    return dataclasses.replace(tool, **changes)


async def tool_enabled(item: Any, context: RunContextWrapper[Any], agent: Any) -> bool:
    enabled = getattr(item, "is_enabled", True)
    if callable(enabled):
        produced = enabled(context, agent)
        enabled = await produced if inspect.isawaitable(produced) else produced
    return bool(enabled)


def result_text(result: ToolResult) -> str:
    """A native tool result's text (what that SDK's hooks and guardrails see)."""
    if isinstance(result.content, str):
        return result.content
    return "".join(b.text for b in result.content if isinstance(b, TextBlock))
