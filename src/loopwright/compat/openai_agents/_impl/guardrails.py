"""Guardrails of the OpenAI Agents SDK layer, on loopwright's native guardrails.

``@input_guardrail`` / ``@output_guardrail`` functions take ``(context, agent, input|output)``
and return ``GuardrailFunctionOutput``; ``@tool_input_guardrail`` / ``@tool_output_guardrail``
functions take one data object and return ``ToolGuardrailFunctionOutput``. The Runner turns
each into a :class:`loopwright.guardrails.Guardrail` for the run and raises the SDK's
tripwire exception when the native run ends with ``error_guardrail_tripped``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, overload

from loopwright.compat.openai_agents._impl.errors import AgentsException

T = TypeVar("T")


@dataclass
class GuardrailFunctionOutput:
    output_info: Any
    tripwire_triggered: bool


@dataclass
class InputGuardrail(Generic[T]):
    guardrail_function: Callable[..., Any]
    name: str | None = None
    run_in_parallel: bool = True

    def get_name(self) -> str:
        return self.name or self.guardrail_function.__name__

    async def run(self, context: Any, agent: Any, input: Any) -> GuardrailFunctionOutput:
        return await _call(self.guardrail_function, context, agent, input)


@dataclass
class OutputGuardrail(Generic[T]):
    guardrail_function: Callable[..., Any]
    name: str | None = None

    def get_name(self) -> str:
        return self.name or self.guardrail_function.__name__

    async def run(self, context: Any, agent: Any, output: Any) -> GuardrailFunctionOutput:
        return await _call(self.guardrail_function, context, agent, output)


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    produced = fn(*args)
    return await produced if inspect.isawaitable(produced) else produced


@dataclass
class InputGuardrailResult:
    guardrail: InputGuardrail[Any]
    output: GuardrailFunctionOutput


@dataclass
class OutputGuardrailResult:
    guardrail: OutputGuardrail[Any]
    agent_output: Any
    agent: Any
    output: GuardrailFunctionOutput


class InputGuardrailTripwireTriggered(AgentsException):
    def __init__(self, guardrail_result: InputGuardrailResult) -> None:
        self.guardrail_result = guardrail_result
        super().__init__(f"Guardrail {guardrail_result.guardrail.get_name()} triggered tripwire")


class OutputGuardrailTripwireTriggered(AgentsException):
    def __init__(self, guardrail_result: OutputGuardrailResult) -> None:
        self.guardrail_result = guardrail_result
        super().__init__(f"Guardrail {guardrail_result.guardrail.get_name()} triggered tripwire")


def _decorator(kind: type[Any], func: Any, name: str | None, **extra: Any) -> Any:
    def decorate(fn: Callable[..., Any]) -> Any:
        return kind(guardrail_function=fn, name=name or fn.__name__, **extra)

    return decorate(func) if func is not None else decorate


@overload
def input_guardrail(func: Callable[..., Any], /) -> InputGuardrail[Any]: ...
@overload
def input_guardrail(
    *, name: str | None = None, run_in_parallel: bool = True
) -> Callable[[Callable[..., Any]], InputGuardrail[Any]]: ...
def input_guardrail(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    run_in_parallel: bool = True,
) -> Any:
    return _decorator(InputGuardrail, func, name, run_in_parallel=run_in_parallel)


@overload
def output_guardrail(func: Callable[..., Any], /) -> OutputGuardrail[Any]: ...
@overload
def output_guardrail(
    *, name: str | None = None
) -> Callable[[Callable[..., Any]], OutputGuardrail[Any]]: ...
def output_guardrail(func: Callable[..., Any] | None = None, /, *, name: str | None = None) -> Any:
    return _decorator(OutputGuardrail, func, name)


# --------------------------------------------------------------------------- tools

ToolBehavior = Literal["allow", "reject_content", "raise_exception"]


@dataclass
class ToolGuardrailFunctionOutput:
    output_info: Any = None
    behavior: dict[str, Any] = field(default_factory=lambda: {"type": "allow"})

    @classmethod
    def allow(cls, output_info: Any = None) -> ToolGuardrailFunctionOutput:
        return cls(output_info, {"type": "allow"})

    @classmethod
    def reject_content(cls, message: str, output_info: Any = None) -> ToolGuardrailFunctionOutput:
        return cls(output_info, {"type": "reject_content", "message": message})

    @classmethod
    def raise_exception(cls, output_info: Any = None) -> ToolGuardrailFunctionOutput:
        return cls(output_info, {"type": "raise_exception"})


@dataclass
class ToolInputGuardrailData:
    context: Any
    agent: Any


@dataclass
class ToolOutputGuardrailData(ToolInputGuardrailData):
    output: Any = None


@dataclass
class ToolInputGuardrail(Generic[T]):
    guardrail_function: Callable[..., Any]
    name: str | None = None

    def get_name(self) -> str:
        return self.name or self.guardrail_function.__name__

    async def run(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        return await _call(self.guardrail_function, data)


@dataclass
class ToolOutputGuardrail(Generic[T]):
    guardrail_function: Callable[..., Any]
    name: str | None = None

    def get_name(self) -> str:
        return self.name or self.guardrail_function.__name__

    async def run(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        return await _call(self.guardrail_function, data)


class ToolInputGuardrailTripwireTriggered(AgentsException):
    def __init__(self, guardrail: ToolInputGuardrail[Any], output: ToolGuardrailFunctionOutput):
        self.guardrail = guardrail
        self.output = output
        super().__init__(f"Tool input guardrail {guardrail.get_name()} triggered tripwire")


class ToolOutputGuardrailTripwireTriggered(AgentsException):
    def __init__(self, guardrail: ToolOutputGuardrail[Any], output: ToolGuardrailFunctionOutput):
        self.guardrail = guardrail
        self.output = output
        super().__init__(f"Tool output guardrail {guardrail.get_name()} triggered tripwire")


def tool_input_guardrail(
    func: Callable[..., Any] | None = None, /, *, name: str | None = None
) -> Any:
    return _decorator(ToolInputGuardrail, func, name)


def tool_output_guardrail(
    func: Callable[..., Any] | None = None, /, *, name: str | None = None
) -> Any:
    return _decorator(ToolOutputGuardrail, func, name)
