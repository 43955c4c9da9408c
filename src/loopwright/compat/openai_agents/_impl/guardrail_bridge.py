"""The OpenAI Agents layer's guardrails as native loopwright guardrails, per run.

Each native check calls the SDK-style guardrail and keeps what it returned, so that when
the native run ends with ``error_guardrail_tripped`` the Runner can raise the SDK's own
tripwire exception with the guardrail's output.
"""

from __future__ import annotations

import json
from typing import Any

from loopwright.compat.openai_agents._impl.context import RunContextWrapper, ToolContext
from loopwright.compat.openai_agents._impl.guardrails import (
    InputGuardrailResult,
    InputGuardrailTripwireTriggered,
    OutputGuardrailResult,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
)
from loopwright.compat.openai_agents._impl.output import final_output
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.compat.openai_agents._impl.run_trace import RunTrace
from loopwright.compat.openai_agents._impl.tools import result_text
from loopwright.guardrails import Guardrail, GuardrailInput, GuardrailVerdict


class GuardrailBridge:
    """One run's guardrails: the run's input (what input guardrails see), its context,
    its RunConfig (guardrails for every agent) and its trace (a span per check)."""

    def __init__(
        self,
        input_items: list[Any],
        context: RunContextWrapper[Any],
        run_config: RunConfig,
        trace: RunTrace,
    ) -> None:
        self._input_items = input_items
        self._context = context
        self._run_config = run_config
        self._trace = trace
        self.input_results: list[InputGuardrailResult] = []
        self.output_results: list[OutputGuardrailResult] = []
        self.tripped: Exception | None = None

    def for_start(self, agent: Any) -> list[Guardrail]:
        config = self._run_config
        guardrails = [*agent.input_guardrails, *(config.input_guardrails or [])]
        if not guardrails:
            return []

        async def check(data: GuardrailInput) -> GuardrailVerdict:
            original = self._input_items
            shown: Any = original
            if (
                len(original) == 1
                and original[0].get("role") == "user"
                and isinstance(original[0].get("content"), str)
            ):
                shown = original[0]["content"]
            for guardrail in guardrails:
                with self._trace.guardrail(agent, guardrail.get_name()) as span:
                    output = await guardrail.run(self._context, agent, shown)
                    span.span_data.triggered = output.tripwire_triggered  # type: ignore[attr-defined]
                result = InputGuardrailResult(guardrail, output)
                self.input_results.append(result)
                if output.tripwire_triggered:
                    self.tripped = InputGuardrailTripwireTriggered(result)
                    return GuardrailVerdict(tripped=True, info=guardrail.get_name())
            return GuardrailVerdict()

        return [Guardrail("input", check, name="input_guardrails")]

    def output_of(self, agent: Any) -> list[Guardrail]:
        config = self._run_config
        guardrails = [*agent.output_guardrails, *(config.output_guardrails or [])]
        if not guardrails:
            return []

        async def check(data: GuardrailInput) -> GuardrailVerdict:
            output = final_output(agent, data.text, data.structured_output)
            for guardrail in guardrails:
                with self._trace.guardrail(agent, guardrail.get_name()) as span:
                    produced = await guardrail.run(self._context, agent, output)
                    span.span_data.triggered = produced.tripwire_triggered  # type: ignore[attr-defined]
                result = OutputGuardrailResult(guardrail, output, agent, produced)
                self.output_results.append(result)
                if produced.tripwire_triggered:
                    self.tripped = OutputGuardrailTripwireTriggered(result)
                    return GuardrailVerdict(tripped=True, info=guardrail.get_name())
            return GuardrailVerdict()

        return [Guardrail("output", check, name="output_guardrails")]

    def of_tool(self, tool: Any, agent: Any) -> list[Guardrail]:
        natives: list[Guardrail] = []
        for guardrail in getattr(tool, "tool_input_guardrails", None) or []:
            natives.append(
                Guardrail(
                    "tool_input",
                    self._tool_check(guardrail, agent, False),
                    name=guardrail.get_name(),
                )
            )
        for guardrail in getattr(tool, "tool_output_guardrails", None) or []:
            natives.append(
                Guardrail(
                    "tool_output",
                    self._tool_check(guardrail, agent, True),
                    name=guardrail.get_name(),
                )
            )
        return natives

    def _tool_check(self, guardrail: Any, agent: Any, after: bool) -> Any:

        async def check(data: GuardrailInput) -> GuardrailVerdict:
            name = data.tool_name or ""
            arguments = json.dumps(data.tool_input or {})
            context = ToolContext.of(self._context, name, "", arguments)
            if after:
                raw = result_text(data.tool_output) if data.tool_output is not None else None
                produced = await guardrail.run(ToolOutputGuardrailData(context, agent, raw))
            else:
                produced = await guardrail.run(ToolInputGuardrailData(context, agent))
            behavior = produced.behavior.get("type", "allow")
            if behavior == "raise_exception":
                kind = (
                    ToolOutputGuardrailTripwireTriggered
                    if after
                    else ToolInputGuardrailTripwireTriggered
                )
                self.tripped = kind(guardrail, produced)
                return GuardrailVerdict(tripped=True, info=guardrail.get_name())
            if behavior == "reject_content":
                return GuardrailVerdict(reject_message=str(produced.behavior.get("message", "")))
            return GuardrailVerdict()

        return check
