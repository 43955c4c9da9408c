"""The typed span data of the OpenAI Agents SDK's tracing: what a processor finds in
``span.span_data`` (its ``type`` and ``export()`` as that SDK gives them)."""

from __future__ import annotations

import abc
from typing import Any


class SpanData(abc.ABC):
    @abc.abstractmethod
    def export(self) -> dict[str, Any]: ...

    @property
    @abc.abstractmethod
    def type(self) -> str: ...


class AgentSpanData(SpanData):
    def __init__(
        self,
        name: str,
        handoffs: list[str] | None = None,
        tools: list[str] | None = None,
        output_type: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.handoffs = handoffs
        self.tools = tools
        self.output_type = output_type
        self.metadata = metadata

    @property
    def type(self) -> str:
        return "agent"

    def export(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "name": self.name,
            "handoffs": self.handoffs,
            "tools": self.tools,
            "output_type": self.output_type,
        }


class _SdkCustom(SpanData):
    """Task and turn spans: exported as custom spans, as that SDK does."""

    def _custom(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"type": "custom", "name": self.type, "data": {"sdk_span_type": self.type, **data}}


class TaskSpanData(_SdkCustom):
    def __init__(self, name: str, usage: dict[str, Any] | None = None) -> None:
        self.name = name
        self.usage = usage

    @property
    def type(self) -> str:
        return "task"

    def export(self) -> dict[str, Any]:
        usage = {"usage": self.usage} if self.usage is not None else {}
        return self._custom({"name": self.name, **usage})


class TurnSpanData(_SdkCustom):
    def __init__(self, turn: int, agent_name: str, usage: dict[str, Any] | None = None) -> None:
        self.turn = turn
        self.agent_name = agent_name
        self.usage = usage

    @property
    def type(self) -> str:
        return "turn"

    def export(self) -> dict[str, Any]:
        usage = {"usage": self.usage} if self.usage is not None else {}
        return self._custom({"turn": self.turn, "agent_name": self.agent_name, **usage})


class FunctionSpanData(SpanData):
    def __init__(
        self,
        name: str,
        input: str | None,
        output: Any | None,
        mcp_data: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.input = input
        self.output = output
        self.mcp_data = mcp_data

    @property
    def type(self) -> str:
        return "function"

    def export(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "name": self.name,
            "input": self.input,
            "output": str(self.output) if self.output is not None else None,
            "mcp_data": self.mcp_data,
        }


class GenerationSpanData(SpanData):
    def __init__(
        self,
        input: Any = None,
        output: Any = None,
        model: str | None = None,
        model_config: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
    ) -> None:
        self.input = input
        self.output = output
        self.model = model
        self.model_config = model_config
        self.usage = usage

    @property
    def type(self) -> str:
        return "generation"

    def export(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "input": self.input,
            "output": self.output,
            "model": self.model,
            "model_config": self.model_config,
            "usage": self.usage,
        }


class ResponseSpanData(SpanData):
    def __init__(self, response: Any = None, input: Any = None) -> None:
        self.response = response
        self.input = input
        self.usage: dict[str, Any] | None = None

    @property
    def type(self) -> str:
        return "response"

    def export(self) -> dict[str, Any]:
        response_id = getattr(self.response, "response_id", None) or getattr(
            self.response, "id", None
        )
        return {"type": self.type, "response_id": response_id, "usage": self.usage}


class HandoffSpanData(SpanData):
    def __init__(self, from_agent: str | None, to_agent: str | None) -> None:
        self.from_agent = from_agent
        self.to_agent = to_agent

    @property
    def type(self) -> str:
        return "handoff"

    def export(self) -> dict[str, Any]:
        return {"type": self.type, "from_agent": self.from_agent, "to_agent": self.to_agent}


class CustomSpanData(SpanData):
    def __init__(self, name: str, data: dict[str, Any]) -> None:
        self.name = name
        self.data = data

    @property
    def type(self) -> str:
        return "custom"

    def export(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "data": self.data}


class GuardrailSpanData(SpanData):
    def __init__(self, name: str, triggered: bool = False) -> None:
        self.name = name
        self.triggered = triggered

    @property
    def type(self) -> str:
        return "guardrail"

    def export(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "triggered": self.triggered}


class MCPListToolsSpanData(SpanData):
    def __init__(self, server: str | None = None, result: list[str] | None = None) -> None:
        self.server = server
        self.result = result

    @property
    def type(self) -> str:
        return "mcp_tools"

    def export(self) -> dict[str, Any]:
        return {"type": self.type, "server": self.server, "result": self.result}
