"""``agents.decorators``: the decorators that make tools and guardrails."""

from loopwright.compat.openai_agents._impl.guardrails import (
    input_guardrail,
    output_guardrail,
    tool_input_guardrail,
    tool_output_guardrail,
)
from loopwright.compat.openai_agents._impl.tools import function_tool

tool = function_tool

__all__ = [
    "function_tool",
    "input_guardrail",
    "output_guardrail",
    "tool",
    "tool_input_guardrail",
    "tool_output_guardrail",
]
