"""The agent side of the OpenAI Agents SDK layer: errors, ``ModelSettings``, ``Agent`` and
``function_tool``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from loopwright.compat._openai_context import (
    current_run_context,
    takes_run_context,
    without_run_context,
)
from loopwright.errors import LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.models.base import Effort, Model
from loopwright.tools.base import FunctionTool, Tool
from loopwright.tools.base import tool as native_tool

# --------------------------------------------------------------------------- errors


class AgentsException(LoopwrightError):
    """Base of the errors this layer raises, as in the OpenAI Agents SDK."""


class MaxTurnsExceeded(AgentsException):
    """The run needed more model calls than ``max_turns`` allows."""

    def __init__(self, message: str, result: ResultMessage | None = None) -> None:
        super().__init__(message)
        self.result = result


class ModelBehaviorError(AgentsException):
    """The model did something the run cannot accept, e.g. no valid ``output_type`` value."""


class UserError(AgentsException):
    """The code asked for something this layer cannot do."""


# --------------------------------------------------------------------------- agents


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Per-agent model knobs. loopwright forwards ``max_tokens`` and the reasoning effort;
    sampling knobs (temperature, top_p…) have no provider-neutral equivalent and are
    ignored with a warning."""

    temperature: float | None = None
    top_p: float | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    reasoning: Any = None  # {"effort": "low"} or an object with an ``effort`` attribute

    @property
    def effort(self) -> Effort | None:
        if isinstance(self.reasoning, Mapping):
            return self.reasoning.get("effort")  # type: ignore[return-value]
        return getattr(self.reasoning, "effort", None)

    def ignored(self) -> list[str]:
        names = ("temperature", "top_p", "frequency_penalty", "presence_penalty", "tool_choice")
        return [f"ModelSettings.{n}" for n in names if getattr(self, n) is not None]


Instructions = str | Callable[..., Any] | None


@dataclass(kw_only=True)
class Agent:
    """What an agent is: a name, instructions (the system prompt), tools, a model."""

    name: str
    instructions: Instructions = None
    handoff_description: str | None = None
    tools: list[Tool] = field(default_factory=list[Tool])
    model: str | Model | None = None
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    output_type: Any = None
    handoffs: list[Any] = field(default_factory=list[Any])
    input_guardrails: list[Any] = field(default_factory=list[Any])
    output_guardrails: list[Any] = field(default_factory=list[Any])

    def __post_init__(self) -> None:
        if self.handoffs:
            raise NotImplementedError(
                f"Agent {self.name!r}: handoffs are not supported by loopwright's openai_agents "
                "layer. Run the other agent yourself (await Runner.run(other, ...)), or use "
                "loopwright subagents: Options(agents={...}) and the Agent tool."
            )
        if self.input_guardrails or self.output_guardrails:
            raise NotImplementedError(
                f"Agent {self.name!r}: guardrails are not supported by loopwright's "
                "openai_agents layer; check input and output in your own code, or use a "
                "loopwright UserPromptSubmit / Stop hook."
            )
        for item in self.tools:
            if not isinstance(item, Tool):
                raise UserError(
                    f"Agent {self.name!r}: {item!r} is not a tool; decorate it with @function_tool"
                )

    def clone(self, **changes: Any) -> Agent:
        return dataclasses.replace(self, **changes)

    def as_tool(
        self,
        tool_name: str | None = None,
        tool_description: str | None = None,
        *,
        max_turns: int | None = None,
    ) -> FunctionTool:
        """This agent as a tool another agent can call: it runs on the given input with a
        fresh conversation and its final output is the tool's result."""
        # The Runner sits above agents in this layer; importing it at call time keeps
        # agent definitions free of the run machinery.
        from loopwright.compat.openai_agents import Runner

        agent = self

        async def run_agent(input: str) -> str:
            """Run the agent on ``input``."""
            context = current_run_context().context
            turns = DEFAULT_AGENT_TOOL_TURNS if max_turns is None else max_turns
            result = await Runner.run(agent, input, context=context, max_turns=turns)
            return str(result.final_output)

        made = native_tool(run_agent)
        description = tool_description or self.handoff_description or f"Run the {self.name} agent"
        return dataclasses.replace(
            made, name=tool_name or _tool_name(self.name), description=description
        )


def _tool_name(agent_name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in agent_name.lower()).strip("_") or "agent"


# --------------------------------------------------------------------------- tools

ToolFunction = Callable[..., Any]
DEFAULT_AGENT_TOOL_TURNS = 10  # the Runner's default, for an agent run as a tool


@overload
def function_tool(func: ToolFunction, /) -> FunctionTool: ...


@overload
def function_tool(
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: str | None = None,
    use_docstring_info: bool = True,
    strict_mode: bool = True,
) -> Callable[[ToolFunction], FunctionTool]: ...


def function_tool(
    func: ToolFunction | None = None,
    /,
    *,
    name_override: str | None = None,
    description_override: str | None = None,
    docstring_style: str | None = None,
    use_docstring_info: bool = True,
    strict_mode: bool = True,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """A tool from a plain function: name, description and argument schema come from its
    signature, type hints and docstring (loopwright's ``@tool`` does the work)."""

    def decorate(fn: ToolFunction) -> FunctionTool:
        made = native_tool(without_run_context(fn) if takes_run_context(fn) else fn)
        description = description_override
        if description is None and not use_docstring_info:
            description = made.name
        return dataclasses.replace(
            made, name=name_override or made.name, description=description or made.description
        )

    return decorate(func) if func is not None else decorate
