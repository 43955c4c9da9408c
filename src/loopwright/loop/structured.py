"""Structured output: the run ends with a valid StructuredOutput call (or a valid JSON
answer), after at most MAX_STRUCTURED_OUTPUT_RETRIES re-prompts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loopwright.loop.steps import Ask, Finish, RunState, Step
from loopwright.messages import ToolResultBlock, ToolUseBlock, UserMessage
from loopwright.session.agent import Agent

# start-up: tools.structured_output loads when a run has an output format
if TYPE_CHECKING:
    from loopwright.tools.structured_output import OutputFormat


def structured_from_answer(
    agent: Agent, fmt: OutputFormat, run: RunState, text: str, stop: str | None
) -> Step:
    """The model ended without calling StructuredOutput: accept a valid JSON answer, else
    ask again, at most MAX_STRUCTURED_OUTPUT_RETRIES times."""
    from loopwright.tools.structured_output import structured_from_text  # start-up

    value, errors = structured_from_text(fmt, text)
    if not errors:
        return Finish("success", stop or "end_turn", structured_output=value)
    return structured_retry(agent, run, None)  # the re-prompt ends the rejected answer


def structured_retry(agent: Agent, run: RunState, errors: list[str] | None) -> Ask | Finish:
    """One more attempt (counted when taken), or the end once the retries are used up."""
    # start-up: see the imports
    from loopwright.tools.structured_output import MAX_STRUCTURED_OUTPUT_RETRIES, reprompt_message

    attempt = run.structured_attempts + 1
    if attempt > MAX_STRUCTURED_OUTPUT_RETRIES:
        return Finish(
            "error_max_structured_output_retries",
            None,
            (
                f"no valid structured output after {MAX_STRUCTURED_OUTPUT_RETRIES} retries",
                *(errors or ()),
            ),
        )
    if errors is not None:  # the error result already told the model what to fix
        return Ask("structured_retry")
    follow_up = reprompt_message(errors, attempt)
    return Ask("structured_retry", UserMessage(follow_up, agent.parent_tool_use_id))


def structured_after_tools(
    agent: Agent, run: RunState, calls: Sequence[ToolUseBlock], results: Sequence[ToolResultBlock]
) -> Ask | Finish | None:
    """After a batch: a successful StructuredOutput call ends the run with its value; a
    failed one is an attempt (the model asked again, or the end once they are used up)."""
    if agent.output_format is None:
        return None
    # start-up: see the imports
    from loopwright.tools.structured_output import STRUCTURED_OUTPUT_TOOL_NAME, extract_structured

    for call, result in zip(calls, results, strict=True):
        if call.name != STRUCTURED_OUTPUT_TOOL_NAME:
            continue
        value, errors = extract_structured(agent.output_format, call.input)
        if not result.is_error and not errors:
            return Finish("success", "tool_use", structured_output=value)
        return structured_retry(agent, run, errors or [result.text])
    return None
