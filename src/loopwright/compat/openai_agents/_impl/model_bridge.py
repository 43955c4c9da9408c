"""A user's ``Model`` (the SDK's interface) as a loopwright model.

Each model call of loopwright's loop becomes one ``get_response`` — or ``stream_response``
in a streamed run — with the conversation as Responses input items, the agent's tools and
handoffs as that SDK's objects, and its output schema (the model answers in JSON itself:
no StructuredOutput tool is offered). The Responses output items that come back become
loopwright content blocks; stream events become loopwright deltas as they arrive.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from loopwright.compat.openai_agents._impl.errors import ModelBehaviorError
from loopwright.compat.openai_agents._impl.items import message_items
from loopwright.compat.openai_agents._impl.model_interface import Model as SdkModel
from loopwright.compat.openai_agents._impl.model_interface import ModelTracing
from loopwright.compat.openai_agents._impl.output import output_schema
from loopwright.compat.openai_agents._impl.ports import SdkToolSource
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.messages import ContentBlock, TextBlock, ThinkingBlock, ToolUseBlock, Usage
from loopwright.models.base import (
    ModelEvent,
    ModelRequest,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)


def _field(item: Any, name: str, default: Any = None) -> Any:
    if isinstance(item, dict):
        return item.get(name, default)  # type: ignore[union-attr]
    return getattr(item, name, default)


def output_blocks(output: list[Any]) -> list[ContentBlock]:
    """Responses output items (objects or dicts) as loopwright content blocks."""
    blocks: list[ContentBlock] = []
    for item in output:
        kind = _field(item, "type")
        if kind == "message":
            for part in _field(item, "content", []) or []:
                text = _field(part, "text") or _field(part, "refusal")
                if text:
                    blocks.append(TextBlock(str(text)))
        elif kind == "function_call":
            blocks.append(_tool_use(item))
        elif kind == "reasoning":
            summary = "".join(str(_field(s, "text", "")) for s in _field(item, "summary", []) or [])
            blocks.append(ThinkingBlock(summary))
    return blocks


def _tool_use(item: Any) -> ToolUseBlock:
    arguments = str(_field(item, "arguments", "") or "{}")
    call_id = str(_field(item, "call_id", "") or "")
    if not call_id:
        raise ModelBehaviorError(
            f"the model's function_call to {_field(item, 'name')} has no call_id; a Model "
            "must give every tool call a non-empty call_id"
        )
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        return ToolUseBlock(call_id, str(_field(item, "name")), {}, raw_input=arguments)
    if not isinstance(parsed, dict):
        return ToolUseBlock(call_id, str(_field(item, "name")), {}, raw_input=arguments)
    return ToolUseBlock(call_id, str(_field(item, "name")), parsed)  # type: ignore[arg-type]


def native_usage(usage: Any) -> Usage:
    """That SDK's ``Usage`` or a Responses ``ResponseUsage`` as loopwright's (cached tokens
    apart, as loopwright counts them)."""
    if usage is None:
        return Usage()
    details = _field(usage, "input_tokens_details")
    cached = int(_field(details, "cached_tokens", 0) or 0) if details is not None else 0
    total_input = int(_field(usage, "input_tokens", 0) or 0)
    return Usage(
        input_tokens=max(0, total_input - cached),
        output_tokens=int(_field(usage, "output_tokens", 0) or 0),
        cache_read_input_tokens=cached,
    )


def native_response(output: list[Any], usage: Any, model: str, response_id: Any) -> ModelResponse:
    blocks = output_blocks(output)
    calls = any(isinstance(b, ToolUseBlock) for b in blocks)
    return ModelResponse(
        blocks,
        native_usage(usage),
        "tool_use" if calls else "end_turn",
        model,
        message_id=str(response_id) if response_id else None,
    )


@dataclass
class _StreamState:
    """The output items a stream has finished so far (used when it sends no
    ``response.completed``)."""

    done: list[Any] = field(default_factory=list[Any])
    calls: dict[int, str] = field(default_factory=dict[int, str])


def stream_delta(event: Any, state: _StreamState) -> ModelEvent | None:
    kind = _field(event, "type")
    index = int(_field(event, "output_index", 0) or 0)
    if kind == "response.output_text.delta":
        return TextDelta(str(_field(event, "delta", "")))
    if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        return ThinkingDelta(str(_field(event, "delta", "")))
    if kind == "response.output_item.added":
        item = _field(event, "item")
        if _field(item, "type") == "function_call":
            state.calls[index] = str(_field(item, "call_id", ""))
            return ToolCallStart(index, state.calls[index], str(_field(item, "name", "")))
    if kind == "response.function_call_arguments.delta" and index in state.calls:
        return ToolInputDelta(index, str(_field(event, "delta", "")))
    if kind == "response.output_item.done":
        state.done.append(_field(event, "item"))
    return None


class SdkModelBridge:
    """Drives a ``Model`` subclass from loopwright's loop for one agent of one run."""

    def __init__(
        self,
        model: SdkModel,
        agent: Any,
        tools: SdkToolSource,
        run_config: RunConfig,
        tracing: ModelTracing,
        streaming: bool,
    ) -> None:
        self.model = model
        self._agent = agent
        self._tools = tools
        self._run_config = run_config
        self._tracing = tracing
        self._streaming = streaming

    @property
    def name(self) -> str:
        return str(getattr(self.model, "model", None) or type(self.model).__name__)

    async def aclose(self) -> None:
        return None  # the user's model outlives the run: they close it

    def _arguments(self, request: ModelRequest) -> tuple[list[Any], dict[str, Any]]:
        tools, handoffs = self._tools.sdk_tools(self._agent, request.tools)
        settings = self._agent.model_settings.resolve(self._run_config.model_settings)
        positional = [
            request.system or None,
            [i for m in request.messages for i in message_items(m)],
            settings,
            tools,
            output_schema(self._agent.output_type),
            handoffs,
            self._tracing,
        ]
        keywords = {"previous_response_id": None, "conversation_id": None, "prompt": None}
        return positional, keywords

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        positional, keywords = self._arguments(request)
        if not self._streaming:
            response = await self.model.get_response(*positional, **keywords)
            yield native_response(
                list(response.output), response.usage, self.name, response.response_id
            )
            return
        state = _StreamState()
        completed: Any = None
        async for event in self.model.stream_response(*positional, **keywords):
            if _field(event, "type") == "response.completed":
                completed = _field(event, "response")
                continue
            delta = stream_delta(event, state)
            if delta is not None:
                yield delta
        if completed is not None:
            output = list(_field(completed, "output", []) or [])
            usage, response_id = _field(completed, "usage"), _field(completed, "id")
        else:
            output, usage, response_id = state.done, None, None
        yield native_response(output, usage, self.name, response_id)


def model_tracing(run_config: RunConfig, disabled: bool) -> ModelTracing:
    """The ``tracing`` a user's Model is told: off, on without the data, or on."""
    if disabled:
        return ModelTracing.DISABLED
    if not run_config.trace_include_sensitive_data:
        return ModelTracing.ENABLED_WITHOUT_DATA
    return ModelTracing.ENABLED
