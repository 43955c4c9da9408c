"""One Runner run, resolved: the loopwright Options an agent runs with, its prompt, and
how its result becomes ``final_output`` (or the exception that SDK raises)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from loopwright.compat._model_choice import choose_model, warn_ignored
from loopwright.compat._openai_agent import (
    Agent,
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    UserError,
)
from loopwright.compat._openai_context import RunContextWrapper
from loopwright.compat._openai_items import RunItem
from loopwright.messages import ResultMessage, TextBlock, UserMessage
from loopwright.models.base import Model
from loopwright.models.registry import DEFAULT_OPENAI_MODEL
from loopwright.options import Options

DEFAULT_MAX_TURNS = 10
T = TypeVar("T")

# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class RunResult:
    """A finished run: ``final_output`` plus what happened on the way."""

    input: str | list[Any]
    final_output: Any
    last_agent: Agent
    new_items: list[RunItem]
    raw_result: ResultMessage

    def final_output_as(self, cls: type[T], raise_if_incorrect_type: bool = False) -> T:
        if raise_if_incorrect_type and not isinstance(self.final_output, cls):
            raise TypeError(f"final_output is a {type(self.final_output).__name__}, not {cls}")
        return self.final_output  # type: ignore[no-any-return]


@dataclass(kw_only=True)
class RunPlan:
    """One run's inputs, resolved: the options, the prompt and how to read the result."""

    agent: Agent
    input: str | list[Any]
    max_turns: int
    options: Options
    prompt: UserMessage

    def final_output(self, result: ResultMessage) -> Any:
        match result.subtype:
            case "success":
                return _parse_output(self.agent.output_type, result)
            case "error_max_turns":
                raise MaxTurnsExceeded(f"Max turns ({self.max_turns}) exceeded", result)
            case "error_max_structured_output_retries":
                raise ModelBehaviorError(
                    f"agent {self.agent.name!r} produced no valid {_type_name(self.agent)}: "
                    + "; ".join(result.errors)
                )
            case _:
                detail = "; ".join(result.errors) or result.subtype
                raise AgentsException(f"agent {self.agent.name!r} run failed: {detail}")


async def plan_run(
    agent: Agent, input: str | list[Any], context: Any, max_turns: int, streaming: bool
) -> RunPlan:
    if max_turns < 1:
        raise UserError(f"max_turns must be at least 1, got {max_turns}")
    warn_ignored("ModelSettings", agent.model_settings.ignored())
    wants_structure = agent.output_type not in (None, str)
    return RunPlan(
        agent=agent,
        input=input,
        max_turns=max_turns,
        prompt=_prompt(input),
        options=Options(
            model=_agent_model(agent),
            system_prompt=await _instructions(agent, context),
            # Exactly the agent's own tools, run without asking: the OpenAI SDK has neither
            # built-in tools nor permission prompts.
            tools=list(agent.tools),
            permission_mode="bypassPermissions",
            setting_sources=[],
            persist_session=False,
            # That SDK counts model calls; loopwright counts tool rounds (one fewer). A
            # structured answer is a StructuredOutput tool call here, so it gets its round.
            max_turns=max_turns - 1 + (1 if wants_structure else 0),
            max_tokens=agent.model_settings.max_tokens,
            effort=agent.model_settings.effort,
            output_format=_output_format(agent.output_type) if wants_structure else None,
            include_partial_messages=streaming,
        ),
    )


def _agent_model(agent: Agent) -> str | Model | None:
    chosen = choose_model(agent.model)
    if chosen is None and os.environ.get("OPENAI_API_KEY"):
        # Code written for the OpenAI SDK that names no model means OpenAI's default, even
        # when an Anthropic key (which loopwright's own default prefers) is also set.
        return f"openai:{DEFAULT_OPENAI_MODEL}"
    return chosen


async def _instructions(agent: Agent, context: Any) -> str:
    if agent.instructions is None:
        return ""  # that SDK sends no system prompt at all then
    if isinstance(agent.instructions, str):
        return agent.instructions
    produced = agent.instructions(RunContextWrapper(context), agent)
    if inspect.isawaitable(produced):
        produced = await produced
    return str(produced)


def _prompt(input: str | list[Any]) -> UserMessage:
    if isinstance(input, str):
        return UserMessage(input)
    texts: list[TextBlock] = []
    for item in input:
        role = item.get("role") if isinstance(item, Mapping) else None
        content = item.get("content") if isinstance(item, Mapping) else None
        if role not in ("user", "system", "developer") or not isinstance(content, str):
            raise UserError(
                "input lists may hold only {'role': 'user', 'content': '<text>'} items here; "
                "earlier assistant turns and tool items cannot be replayed. Pass the "
                f"conversation as text, or use loopwright's Client for multi-turn. Got {item!r}"
            )
        texts.append(TextBlock(content))
    if not texts:
        raise UserError("input is an empty list; give the agent something to do")
    return UserMessage(list(texts))


def _output_format(output_type: Any) -> dict[str, Any]:
    from pydantic import TypeAdapter

    schema = TypeAdapter(output_type).json_schema()
    return {"type": "json_schema", "schema": schema}


def _parse_output(output_type: Any, result: ResultMessage) -> Any:
    if output_type in (None, str):
        return result.result or ""
    from pydantic import TypeAdapter, ValidationError

    try:
        return TypeAdapter(output_type).validate_python(result.structured_output)
    except ValidationError as exc:
        raise ModelBehaviorError(
            f"the structured output does not fit {output_type}: {exc}"
        ) from exc


def _type_name(agent: Agent) -> str:
    return getattr(agent.output_type, "__name__", repr(agent.output_type))
