"""The run context of the OpenAI Agents SDK layer: ``RunContextWrapper``, ``ToolContext``,
``Usage``, and how a function tool whose first parameter is a context receives it.

Tools are called by loopwright's executor, which knows nothing about this SDK's context
object, so the Runner puts the run's wrapper in a context variable for the duration of a
run; tasks the loop starts for tool calls inherit it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, get_origin, get_type_hints

TContext = TypeVar("TContext")


@dataclass
class InputTokensDetails:
    cached_tokens: int = 0


@dataclass
class OutputTokensDetails:
    reasoning_tokens: int = 0


@dataclass
class Usage:
    """Tokens and model requests of a run, as that SDK counts them."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    input_tokens_details: InputTokensDetails = field(default_factory=InputTokensDetails)
    output_tokens_details: OutputTokensDetails = field(default_factory=OutputTokensDetails)
    request_usage_entries: list[Usage] = field(default_factory=list["Usage"])

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens
        self.input_tokens_details.cached_tokens += other.input_tokens_details.cached_tokens
        self.output_tokens_details.reasoning_tokens += other.output_tokens_details.reasoning_tokens


@dataclass
class RunContextWrapper(Generic[TContext]):
    """What instructions, hooks, guardrails and context-taking tools receive: the run's
    ``context`` object and its ``usage`` so far."""

    context: TContext
    usage: Usage = field(default_factory=Usage)
    turn_input: list[Any] = field(default_factory=list[Any])


AgentHookContext = RunContextWrapper


@dataclass
class ToolContext(RunContextWrapper[TContext]):
    """The run context of one tool call: also its name, call id and JSON arguments."""

    tool_name: str = ""
    tool_call_id: str = ""
    tool_arguments: str = ""

    @classmethod
    def of(
        cls, run: RunContextWrapper[Any], name: str, call_id: str, arguments: str
    ) -> ToolContext[Any]:
        return cls(run.context, run.usage, run.turn_input, name, call_id, arguments)


_current: ContextVar[RunContextWrapper[Any] | None] = ContextVar("openai_run_context", default=None)
_current_tool: ContextVar[ToolContext[Any] | None] = ContextVar("openai_tool_context", default=None)


@contextmanager
def run_context(wrapper: RunContextWrapper[Any]) -> Generator[RunContextWrapper[Any]]:
    token = _current.set(wrapper)
    try:
        yield wrapper
    finally:
        _current.reset(token)


@contextmanager
def tool_context(wrapper: ToolContext[Any]) -> Generator[ToolContext[Any]]:
    token = _current_tool.set(wrapper)
    try:
        yield wrapper
    finally:
        _current_tool.reset(token)


def current_run_context() -> RunContextWrapper[Any]:
    return _current.get() or RunContextWrapper(None)


def current_tool_context() -> RunContextWrapper[Any]:
    return _current_tool.get() or current_run_context()


def takes_run_context(fn: Callable[..., Any]) -> bool:
    """Whether the first parameter is a run or tool context (annotated, or named ``ctx`` /
    ``context`` / ``wrapper`` without an annotation)."""
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        return False
    try:
        annotation = get_type_hints(fn).get(params[0].name)
    except Exception:  # unresolvable forward references: fall back on the raw annotation
        annotation = params[0].annotation
    if isinstance(annotation, str):
        return annotation.split("[")[0] in ("RunContextWrapper", "ToolContext")
    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, RunContextWrapper)


def without_run_context(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` minus its context parameter, which is filled from the running Runner; the schema
    is then made from the remaining parameters only."""
    hints = get_type_hints(fn, include_extras=True)
    signature = inspect.signature(fn)
    first, *rest = signature.parameters.values()

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await fn(current_tool_context(), *args, **kwargs)

        wrapper: Callable[..., Any] = call_async
    else:

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return fn(current_tool_context(), *args, **kwargs)

        wrapper = call
    wrapper.__signature__ = signature.replace(parameters=rest)  # type: ignore[attr-defined]
    # Resolved hints: string annotations would otherwise be looked up in this module.
    wrapper.__annotations__ = {k: v for k, v in hints.items() if k != first.name}
    del wrapper.__wrapped__  # type: ignore[attr-defined] - signature() must not unwrap
    return wrapper
