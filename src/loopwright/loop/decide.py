"""What the loop decides from a model response, and the limits checked after each call.

Each response becomes a tagged next step — :class:`Finish`, :class:`RunTools` or
:class:`AskAgain` — that :mod:`loopwright.loop.run` dispatches in one ``match``.
"""

from __future__ import annotations

from loopwright.loop.steps import (
    CONTINUE_PROMPT,
    DEFAULT_MAX_TOKENS,
    MAX_CONSECUTIVE_PAUSES,
    MAX_TEXT_CONTINUATIONS,
    AskAgain,
    Finish,
    NextStep,
    RunState,
    RunTools,
)
from loopwright.loop.structured import structured_from_answer
from loopwright.messages import ToolUseBlock, UserMessage
from loopwright.models.base import ModelResponse
from loopwright.options import Options
from loopwright.session.agent import Agent
from loopwright.session.spend import Totals


def next_step(agent: Agent, run: RunState, response: ModelResponse) -> NextStep:
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    stop = response.stop_reason
    if stop != "pause_turn":
        run.pauses = 0
    if stop == "max_tokens" and calls and (calls[-1].raw_input is not None or not calls[-1].input):
        return _cut_tool_call(agent.options, run)
    if calls:
        return RunTools(calls)
    text = "".join(getattr(b, "text", "") for b in response.content if b.type == "text")
    run.final_text.append(text)
    match stop:
        case "max_tokens" if run.continuations < MAX_TEXT_CONTINUATIONS:
            run.continuations += 1
            return AskAgain(UserMessage(CONTINUE_PROMPT, agent.parent_tool_use_id))
        case "pause_turn" if run.pauses < MAX_CONSECUTIVE_PAUSES:
            run.pauses += 1
            return AskAgain()
        case "pause_turn":
            return Finish(
                "error_during_execution", stop, ("the model paused too many times in a row",)
            )
        case _ if agent.output_format is not None and stop != "refusal":
            return structured_from_answer(agent, agent.output_format, run, text, stop)
        case _:
            return Finish("success", stop or "end_turn")


def _cut_tool_call(options: Options, run: RunState) -> NextStep:
    """A tool call cut off by max_tokens: once more with twice the room, then give up."""
    if run.cut_tool_call_retried:
        return Finish(
            "error_during_execution",
            "max_tokens",
            ("the model's tool call was cut off by max_tokens twice; raise max_tokens",),
        )
    run.cut_tool_call_retried = True
    larger = 2 * (run.max_tokens_override or options.max_tokens or DEFAULT_MAX_TOKENS)
    return AskAgain(
        None,
        larger,
        keep_response=False,
        note=f"a tool call was cut off by max_tokens; retrying with max_tokens={larger}",
    )


def limit_reached(options: Options, spent: Totals) -> Finish | None:
    """Limits checked after every model call against what this run has spent."""
    cost = spent.cost_usd
    if options.max_budget_usd is not None and cost is not None and cost >= options.max_budget_usd:
        return Finish(
            "error_max_budget_usd",
            None,
            (f"cost ${cost:.4f} reached max_budget_usd ${options.max_budget_usd:.4f}",),
        )
    used = spent.usage.input_tokens + spent.usage.output_tokens
    if options.task_budget is not None and used >= options.task_budget:
        return Finish(
            "error_max_tokens_budget",
            None,
            (f"{used} tokens used, task_budget is {options.task_budget}",),
        )
    return None


def turns_exhausted(options: Options, run: RunState) -> bool:
    return options.max_turns is not None and run.num_turns >= options.max_turns
