"""What the loop decides from a model response, and the limits checked after each call.

Each response becomes a step — :class:`Finish`, :class:`RunTools` or :class:`Ask`, with
the reason it was chosen — that :mod:`loopwright.loop.run` takes. Nothing here changes
state: the counters move in ``steps.advance`` when the step is taken.
"""

from __future__ import annotations

from loopwright.loop.steps import (
    CONTINUE_PROMPT,
    DEFAULT_MAX_TOKENS,
    MAX_CONSECUTIVE_PAUSES,
    MAX_TEXT_CONTINUATIONS,
    Ask,
    Finish,
    RunState,
    RunTools,
    Step,
)
from loopwright.loop.structured import structured_from_answer
from loopwright.messages import TextBlock, ToolUseBlock, UserMessage
from loopwright.models.base import ModelResponse
from loopwright.options import Options
from loopwright.session.agent import Agent
from loopwright.session.spend import Totals


def next_step(agent: Agent, run: RunState, response: ModelResponse) -> Step:
    """What a response asks for. Reads the run's counters; ``advance`` moves them."""
    calls = [b for b in response.content if isinstance(b, ToolUseBlock)]
    stop = response.stop_reason
    if stop == "max_tokens" and calls and (calls[-1].raw_input is not None or not calls[-1].input):
        return _cut_tool_call(agent.options, run)
    if calls:
        return RunTools(calls)
    text = "".join(b.text for b in response.content if isinstance(b, TextBlock))
    match stop:
        case "max_tokens" if run.continuations < MAX_TEXT_CONTINUATIONS:
            return Ask("continue_cut_text", UserMessage(CONTINUE_PROMPT, agent.parent_tool_use_id))
        case "pause_turn" if run.pauses < MAX_CONSECUTIVE_PAUSES:
            return Ask("pause_turn")
        case "pause_turn":
            return Finish(
                "error_during_execution", stop, ("the model paused too many times in a row",)
            )
        case _ if agent.output_format is not None and stop != "refusal":
            return structured_from_answer(agent, agent.output_format, run, text, stop)
        case _:
            return Finish("success", stop or "end_turn")


def keeps_response(step: Step) -> bool:
    """Whether the response that asked for ``step`` joins the conversation (a cut-off
    tool call does not: it is asked for again whole)."""
    return not (isinstance(step, Ask) and step.reason == "retry_cut_tool_call")


def _cut_tool_call(options: Options, run: RunState) -> Step:
    """A tool call cut off by max_tokens: once more with twice the room, then give up."""
    if run.cut_tool_call_retried:
        return Finish(
            "error_during_execution",
            "max_tokens",
            ("the model's tool call was cut off by max_tokens twice; raise max_tokens",),
        )
    larger = 2 * (run.max_tokens_override or options.max_tokens or DEFAULT_MAX_TOKENS)
    return Ask(
        "retry_cut_tool_call",
        max_tokens=larger,
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
    """No batch may run: the run has used its max_turns."""
    return options.max_turns is not None and run.num_turns >= options.max_turns
