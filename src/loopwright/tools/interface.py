"""What a tool is: the :class:`Tool` protocol every tool satisfies (built-ins, ``@tool``
functions, MCP tools, the subagent tool), its defaults, and the one wrapper base."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from loopwright.tools.context import ToolContext
from loopwright.tools.results import ToolResult


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
