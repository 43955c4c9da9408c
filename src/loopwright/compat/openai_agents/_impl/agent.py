"""The agent side of the OpenAI Agents SDK layer: ``ModelSettings``, ``Agent`` (generic over
its context type, ``Agent[MyContext]``) and ``Agent.as_tool``."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import TypeAdapter

from loopwright.compat.openai_agents._impl.context import (
    RunContextWrapper,
    ToolContext,
    current_tool_context,
)
from loopwright.compat.openai_agents._impl.errors import (
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    UserError,
)
from loopwright.compat.openai_agents._impl.mcp import mcp_tools
from loopwright.compat.openai_agents._impl.output import StopAtTools
from loopwright.compat.openai_agents._impl.runner import Runner
from loopwright.compat.openai_agents._impl.tools import FunctionTool, tool_enabled
from loopwright.models.base import Effort, Model

TContext = TypeVar("TContext")

__all__ = [
    "Agent",
    "AgentBase",
    "AgentsException",
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "ModelSettings",
    "StopAtTools",
    "UserError",
]


@dataclass
class ModelSettings:
    """Per-agent model knobs. loopwright forwards ``max_tokens``, the reasoning effort and
    the retry count; the sampling knobs and ``tool_choice`` are ignored with a warning;
    the rest (verbosity, metadata, store…) are accepted and have no effect here."""

    temperature: float | None = None
    top_p: float | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    tool_choice: Any = None
    parallel_tool_calls: bool | None = None
    truncation: Literal["auto", "disabled"] | None = None
    max_tokens: int | None = None
    reasoning: Any = None  # {"effort": "low"} or openai.types.shared.Reasoning
    verbosity: Literal["low", "medium", "high"] | None = None
    metadata: dict[str, str] | None = None
    store: bool | None = None
    prompt_cache_retention: Any = None
    include_usage: bool | None = None
    response_include: list[Any] | None = None
    top_logprobs: int | None = None
    extra_query: Any = None
    extra_body: Any = None
    extra_headers: Any = None
    extra_args: dict[str, Any] | None = None
    retry: Any = None

    @property
    def effort(self) -> Effort | None:
        if isinstance(self.reasoning, Mapping):
            return self.reasoning.get("effort")  # type: ignore[return-value]
        return getattr(self.reasoning, "effort", None)

    def resolve(self, override: ModelSettings | None) -> ModelSettings:
        """These settings with the non-None values of ``override`` on top."""
        if override is None:
            return self
        changes = {
            f.name: getattr(override, f.name)
            for f in dataclasses.fields(override)
            if getattr(override, f.name) is not None
        }
        return dataclasses.replace(self, **changes)

    def to_json_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def ignored(self) -> list[str]:
        names = ("temperature", "top_p", "frequency_penalty", "presence_penalty", "tool_choice")
        return [f"ModelSettings.{n}" for n in names if getattr(self, n) is not None]


Instructions = str | Callable[..., Any] | None


@dataclass(kw_only=True)
class AgentBase(Generic[TContext]):
    name: str
    handoff_description: str | None = None
    tools: list[Any] = field(default_factory=list[Any])
    mcp_servers: list[Any] = field(default_factory=list[Any])
    mcp_config: dict[str, Any] = field(default_factory=dict[str, Any])

    async def get_all_tools(self, run_context: RunContextWrapper[Any]) -> list[Any]:
        """The tools the model would see now: MCP servers' tools, then the enabled ones."""
        tools: list[Any] = await mcp_tools(self.mcp_servers)
        for item in self.tools:
            if await tool_enabled(item, run_context, self):
                tools.append(item)
        return tools


@dataclass(kw_only=True)
class Agent(AgentBase[TContext]):
    """What an agent is: a name, instructions (the system prompt), tools, a model, handoffs,
    guardrails, an output type and lifecycle hooks."""

    instructions: Instructions = None
    prompt: Any = None
    handoffs: list[Any] = field(default_factory=list[Any])
    model: str | Model | Any = None
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    input_guardrails: list[Any] = field(default_factory=list[Any])
    output_guardrails: list[Any] = field(default_factory=list[Any])
    output_type: Any = None
    hooks: Any = None
    tool_use_behavior: Any = "run_llm_again"
    reset_tool_choice: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise UserError(f"Agent name must be a string, got {type(self.name).__name__}")
        if self.prompt is not None:
            raise UserError(
                f"Agent {self.name!r}: prompt= names a prompt stored on OpenAI's servers, which "
                "loopwright cannot read; put the text in instructions= instead"
            )
        for item in self.tools:
            if not hasattr(item, "name") or not hasattr(item, "call"):
                raise UserError(
                    f"Agent {self.name!r}: {item!r} is not a tool; decorate it with @function_tool"
                )

    def clone(self, **changes: Any) -> Agent[TContext]:
        return dataclasses.replace(self, **changes)

    async def get_system_prompt(self, run_context: RunContextWrapper[TContext]) -> str | None:
        if self.instructions is None or isinstance(self.instructions, str):
            return self.instructions
        produced = self.instructions(run_context, self)
        return str(await produced if inspect.isawaitable(produced) else produced)

    def as_tool(
        self,
        tool_name: str | None = None,
        tool_description: str | None = None,
        custom_output_extractor: Callable[..., Any] | None = None,
        is_enabled: bool | Callable[..., Any] = True,
        on_stream: Callable[..., Any] | None = None,
        run_config: Any = None,
        max_turns: int | None = None,
        hooks: Any = None,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        session: Any = None,
        failure_error_function: Any = None,
        needs_approval: bool | Callable[..., Any] = False,
        parameters: Any = None,
        include_input_schema: bool = False,
    ) -> FunctionTool:
        """This agent as a tool another agent can call: it runs on the given input with a
        fresh conversation and its final output is the tool's result. ``parameters`` (a
        pydantic model or dataclass) gives the tool a structured input."""
        agent = self
        name = tool_name or _tool_name(self.name)
        description = tool_description or self.handoff_description or f"Run the {self.name} agent"
        schema = _parameters_schema(parameters)

        async def invoke(context: Any, arguments: str) -> Any:
            parsed = json.loads(arguments) if arguments else {}
            task = parsed.get("input", "") if parameters is None else json.dumps(parsed)
            turns = DEFAULT_AGENT_TOOL_TURNS if max_turns is None else max_turns
            outer = current_tool_context()
            if on_stream is not None:
                result = await _streamed_tool_run(agent, task, outer, turns, on_stream, name)
            else:
                result = await Runner.run(
                    agent,
                    task,
                    context=outer.context,
                    max_turns=turns,
                    hooks=hooks,
                    run_config=run_config,
                    session=session,
                )
            if custom_output_extractor is not None:
                produced = custom_output_extractor(result)
                return await produced if inspect.isawaitable(produced) else produced
            output = result.final_output
            return output if isinstance(output, str) else _as_text(output)

        return FunctionTool(
            name=name,
            description=description,
            params_json_schema=schema,
            on_invoke_tool=invoke,
            is_enabled=is_enabled,
            needs_approval=needs_approval,
            on_stream=on_stream,
        )


async def _streamed_tool_run(
    agent: Any, task: str, outer: Any, turns: int, on_stream: Callable[..., Any], name: str
) -> Any:
    streamed = Runner.run_streamed(agent, task, context=outer.context, max_turns=turns)
    call = _ToolCallRef(outer.tool_call_id if isinstance(outer, ToolContext) else "", name)
    async for event in streamed.stream_events():
        produced = on_stream({"event": event, "agent": agent, "tool_call": call})
        if inspect.isawaitable(produced):
            await produced
    return streamed


@dataclass(frozen=True, slots=True)
class _ToolCallRef:
    call_id: str
    name: str


def _as_text(output: Any) -> str:
    dump = getattr(output, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    try:
        return json.dumps(output, default=str)
    except TypeError:
        return str(output)


def _parameters_schema(parameters: Any) -> dict[str, Any]:
    if parameters is None:
        return {
            "type": "object",
            "properties": {"input": {"type": "string", "description": "The input for the agent"}},
            "required": ["input"],
            "additionalProperties": False,
        }
    return TypeAdapter(parameters).json_schema()


def _tool_name(agent_name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in agent_name.lower()).strip("_") or "agent"


DEFAULT_AGENT_TOOL_TURNS = 10  # the Runner's default, for an agent run as a tool
