"""What a tool is, what it gets when called, and the ``@tool`` decorator.

Built-ins, ``@tool`` functions, MCP tools and the subagent tool all satisfy the same
:class:`Tool` protocol, so the executor treats them alike.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, get_type_hints, overload, runtime_checkable

from loopwright.errors import ConfigurationError, ToolInputError
from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.context import FileRecord as FileRecord
from loopwright.tools.context import PathGuard as PathGuard
from loopwright.tools.context import SessionState as SessionState
from loopwright.tools.context import ToolContext as ToolContext
from loopwright.tools.context import ToolServices as ToolServices
from loopwright.tools.results import LoopRequest as LoopRequest
from loopwright.tools.results import ToolResult as ToolResult
from loopwright.types import HookNotice, PermissionMode

if TYPE_CHECKING:  # pydantic is loaded only when a @tool is made: start-up stays fast
    from pydantic import TypeAdapter, ValidationError


@runtime_checkable
class MinimalTool(Protocol):
    """What a tool must have. A user's tool with only these is adopted (:func:`adopt_tool`)
    and gets :class:`ToolBase`'s defaults for the rest."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> dict[str, Any]: ...

    @property
    def read_only(self) -> bool: ...

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


@runtime_checkable
class Tool(MinimalTool, Protocol):
    """A tool the model can call: every member the executor and the wrappers read.
    Inherit :class:`ToolBase` for the defaults of the optional ones."""

    @property
    def timeout_seconds(self) -> float | None:
        """The tool's own time limit in seconds; None for the session's."""
        ...

    @property
    def idempotent(self) -> bool | None:
        """Whether the tool is safe to run twice (after a crash); None if it does not say."""
        ...


class ToolBase:
    """Defaults for a Tool's optional members; the built-in tools inherit it, and so can a
    user's. Class attributes, so a subclass (or a dataclass field) can set them."""

    __slots__ = ()

    timeout_seconds: float | None = None
    idempotent: bool | None = None


def timeout_of(tool: Tool) -> float | None:
    """The tool's own time limit in seconds, None for the session's (or a value that is not
    a positive number)."""
    own = tool.timeout_seconds
    if isinstance(own, bool) or not isinstance(own, int | float) or own <= 0:
        return None
    return float(own)


def idempotent_of(tool: Tool) -> bool | None:
    """Whether the tool says it is safe to run twice, None if it says nothing."""
    own = tool.idempotent
    return own if isinstance(own, bool) else None


class ToolWrapper:
    """The base of every tool that wraps another (guardrails, checkpoints, a compat layer's
    run, durable steps): every member of :class:`Tool` is passed on, so a wrapper cannot
    drop one. The wrapped tool may be a user's (or a compat layer's) object without the
    optional members: those are read through :func:`adopt_tool`.

    ``input_schema`` is the wrapped tool's own object, not a copy: the executor keeps a
    compiled validator per schema object, and a fresh dict per access would compile (and
    keep) a new one on every call. Subclasses provide ``wrapped`` and override what they
    change — usually only ``call``.
    """

    __slots__ = ()

    @property
    def wrapped(self) -> MinimalTool:
        raise NotImplementedError(f"{type(self).__name__} must say which tool it wraps")

    @property
    def declared(self) -> Tool:
        """The wrapped tool with every member of the interface."""
        return adopt_tool(self.wrapped)

    @property
    def name(self) -> str:
        return self.wrapped.name

    @property
    def description(self) -> str:
        return self.wrapped.description

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.wrapped.input_schema

    @property
    def read_only(self) -> bool:
        return self.wrapped.read_only

    @property
    def timeout_seconds(self) -> float | None:
        return timeout_of(self.declared)

    @property
    def idempotent(self) -> bool | None:
        return idempotent_of(self.declared)

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.wrapped.call(input, ctx)


def adopt_tool(tool: MinimalTool) -> Tool:
    """``tool`` with every member of :class:`Tool`: itself when it has them all (ours
    inherit ToolBase or ToolWrapper), else seen through :class:`ForeignTool`. The one place
    a tool that is not ours is adapted."""
    if isinstance(tool, ToolBase | ToolWrapper | Tool):
        return tool
    return ForeignTool(tool)


class ForeignTool(ToolWrapper):
    """A tool object that does not inherit ToolBase (a user's duck-typed tool, a compat
    layer's): what it has is used, the optional members it lacks take ToolBase's
    defaults."""

    __slots__ = ("foreign",)

    def __init__(self, foreign: MinimalTool) -> None:
        self.foreign = foreign

    @property
    def wrapped(self) -> MinimalTool:
        return self.foreign

    def _own(self, member: str) -> Any:
        # The object is foreign: an optional member may be missing, and only here is it
        # looked up by name.
        return getattr(self.foreign, member, None)

    @property
    def timeout_seconds(self) -> float | None:
        own = self._own("timeout_seconds")
        return None if isinstance(own, bool) or not isinstance(own, int | float) else own

    @property
    def idempotent(self) -> bool | None:
        own = self._own("idempotent")
        return own if isinstance(own, bool) else None


@runtime_checkable
class Closeable(Protocol):
    """A session resource that must be released when the session ends."""

    async def aclose(self) -> None: ...


# --------------------------------------------------------------------------- @tool

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


# --------------------------------------------------------------------------- gate


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Whether a validated tool call may run, with what input, and why not.

    ``interrupt`` ends the whole run after this batch (a deny that stops the agent).
    ``additional_context`` is appended to the tool result for the model.
    """

    allowed: bool
    input: dict[str, Any]
    message: str = ""
    interrupt: bool = False
    additional_context: str | None = None
    # Not run now: the call waits for a person's approval (``message`` says why), and the
    # run ends pending_approval; ``suggestion`` is a rule that would allow such calls.
    deferred: bool = False
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class GateReport:
    """What a gate learned during one batch: what hooks said, and whether one stopped the run."""

    notices: tuple[HookNotice, ...] = ()
    stop_reason: str | None = None


class ToolGate(Protocol):
    """Runs around every tool call: permissions and PreToolUse before, PostToolUse after.

    Everything the loop and the Client use of a gate is declared here.
    """

    @property
    def mode(self) -> PermissionMode: ...

    def set_mode(self, mode: PermissionMode) -> None: ...

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision: ...

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult: ...

    def end_batch(self) -> GateReport:
        """What the batch that just ended left to report; the gate forgets it."""
        ...


class OpenGate:
    """Lets every call run unchanged (used when no permission policy is configured)."""

    @property
    def mode(self) -> PermissionMode:
        return "bypassPermissions"

    def set_mode(self, mode: PermissionMode) -> None:
        raise ConfigurationError(
            "this session runs without a permission gate, so there is no mode to change; "
            "build it from Options (permission_mode=...) to get one"
        )

    async def before(self, tool: Tool, input: dict[str, Any], ctx: ToolContext) -> GateDecision:
        return GateDecision(True, input)

    async def after(
        self, tool: Tool, input: dict[str, Any], result: ToolResult, ctx: ToolContext
    ) -> ToolResult:
        return result

    def end_batch(self) -> GateReport:
        return GateReport()
