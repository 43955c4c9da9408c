"""The run context of the OpenAI Agents SDK layer: ``RunContextWrapper`` and how a function
tool whose first parameter is one receives it.

Tools are called by loopwright's executor, which knows nothing about this SDK's context
object, so the Runner puts it in a context variable for the duration of a run; tasks the
loop starts for tool calls inherit it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_origin, get_type_hints

TContext = TypeVar("TContext")


@dataclass(frozen=True, slots=True)
class RunContextWrapper(Generic[TContext]):
    """What callable ``instructions`` and context-taking tools receive: the run's ``context``."""

    context: TContext


_current: ContextVar[RunContextWrapper[Any] | None] = ContextVar("openai_run_context", default=None)


@contextmanager
def run_context(context: Any) -> Generator[RunContextWrapper[Any]]:
    wrapper = RunContextWrapper(context)
    token = _current.set(wrapper)
    try:
        yield wrapper
    finally:
        _current.reset(token)


def current_run_context() -> RunContextWrapper[Any]:
    return _current.get() or RunContextWrapper(None)


def takes_run_context(fn: Callable[..., Any]) -> bool:
    """Whether the first parameter is annotated ``RunContextWrapper`` (bare or subscripted)."""
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        return False
    annotation = get_type_hints(fn).get(params[0].name)
    return annotation is RunContextWrapper or get_origin(annotation) is RunContextWrapper


def without_run_context(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` minus its context parameter, which is filled from the running Runner; the schema
    is then made from the remaining parameters only."""
    hints = get_type_hints(fn)
    signature = inspect.signature(fn)
    first, *rest = signature.parameters.values()

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await fn(current_run_context(), *args, **kwargs)

        wrapper: Callable[..., Any] = call_async
    else:

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return fn(current_run_context(), *args, **kwargs)

        wrapper = call
    wrapper.__signature__ = signature.replace(parameters=rest)  # type: ignore[attr-defined]
    # Resolved hints: string annotations would otherwise be looked up in this module.
    wrapper.__annotations__ = {k: v for k, v in hints.items() if k != first.name}
    del wrapper.__wrapped__  # type: ignore[attr-defined] - signature() must not unwrap
    return wrapper
