"""Per-run wrappers the Runner puts around an agent's tools and model: approvals, lifecycle
hooks, the run's usage and raw responses, and each tool's own return value."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loopwright.compat.openai_agents._impl.context import ToolContext, tool_context
from loopwright.compat.openai_agents._impl.items import (
    ModelResponse,
    assistant_items,
)
from loopwright.compat.openai_agents._impl.span_data import GenerationSpanData, ResponseSpanData
from loopwright.compat.openai_agents._impl.tools import FunctionTool, tool_output_result
from loopwright.compat.openai_agents._impl.tracing import Span
from loopwright.messages import AssistantMessage, ToolUseBlock
from loopwright.models.base import Model, ModelEvent, ModelRequest, ModelWrapper
from loopwright.models.base import ModelResponse as NativeResponse
from loopwright.tools.base import Tool, ToolResult, ToolWrapper
from loopwright.tools.base import ToolContext as NativeToolContext

if TYPE_CHECKING:
    from loopwright.compat.openai_agents._impl.driver import RunDriver


async def call_hook(hooks: Any, name: str, *args: Any) -> None:
    method = getattr(hooks, name, None) if hooks is not None else None
    if method is None:
        return
    produced = method(*args)
    if inspect.isawaitable(produced):
        await produced


@dataclass
class RunTool(ToolWrapper):
    """One of the agent's tools, as this run executes it (the rest is the tool's own)."""

    tool: Any
    agent: Any
    driver: RunDriver

    @property
    def wrapped(self) -> Tool:
        return self.tool

    async def call(self, input: dict[str, Any], ctx: NativeToolContext) -> ToolResult:
        driver = self.driver
        arguments = json.dumps(input)
        context = ToolContext.of(driver.wrapper, self.name, ctx.tool_use_id, arguments)
        call = ToolUseBlock(ctx.tool_use_id, self.name, input)
        if await self._needs_approval(context, input, ctx.tool_use_id):
            rejection = await self._approve(call, context)
            if rejection is not None:
                return ToolResult(rejection)
        await driver.hooks_both(self.agent, "on_tool_start", context, self.agent, self.tool)
        with (
            tool_context(context),
            driver.run_trace.function(self.agent, self.name, arguments) as span,
        ):
            if isinstance(self.tool, FunctionTool):
                raw: Any = await self.tool.invoke(input)
                result = tool_output_result(raw)
            else:
                result = await self.tool.call(input, ctx)
                raw = result_text(result)
            if driver.run_trace.include_data:
                span.span_data.output = raw  # type: ignore[attr-defined]
        driver.tool_outputs[ctx.tool_use_id] = (self.tool, raw)
        await driver.hooks_both(self.agent, "on_tool_end", context, self.agent, self.tool, raw)
        return result

    async def _approve(self, call: ToolUseBlock, context: ToolContext[Any]) -> str | None:
        """None when the call may run, else the message the model gets instead."""
        extras = getattr(self.tool, "extras", {})
        decide = extras.get("on_approval") if isinstance(extras, dict) else None
        if decide is None:
            return await self.driver.approval(self.agent, call, self.name)
        from loopwright.compat.openai_agents._impl.items import ToolApprovalItem

        raw = {"type": "shell_call", "call_id": call.id, "action": dict(call.input)}
        produced = decide(context, ToolApprovalItem(self.agent, raw, tool_name=self.name))
        verdict = await produced if inspect.isawaitable(produced) else produced
        if verdict.get("approve"):
            return None
        return str(verdict.get("reason") or f"The call to {self.name} was not approved.")

    async def needs_approval_for(self, input: dict[str, Any], call_id: str | None) -> bool:
        """Whether this call must wait for approval (a tool that decides itself with an
        ``on_approval`` callback never waits)."""
        extras = getattr(self.tool, "extras", {})
        if isinstance(extras, dict) and extras.get("on_approval") is not None:
            return False
        context = ToolContext.of(self.driver.wrapper, self.name, call_id or "", json.dumps(input))
        return await self._needs_approval(context, input, call_id or "")

    async def _needs_approval(
        self, context: ToolContext[Any], input: dict[str, Any], call_id: str
    ) -> bool:
        needs = getattr(self.tool, "needs_approval", False)
        if callable(needs):
            produced = needs(context, input, call_id)
            needs = await produced if inspect.isawaitable(produced) else produced
        return bool(needs)


class RunModel(ModelWrapper):
    """The agent's model, with the run's usage, raw responses and LLM hooks around it."""

    def __init__(self, inner: Any, agent: Any, driver: RunDriver) -> None:
        self._inner = inner
        self._agent = agent
        self._driver = driver

    @property
    def wrapped(self) -> Model:
        return self._inner

    @property
    def answers_in_json(self) -> bool:
        """Whether this model takes an ``output_type`` natively (a JSON-schema answer) rather
        than through loopwright's StructuredOutput tool."""
        from loopwright.compat.openai_agents._impl.litellm import LitellmNative
        from loopwright.compat.openai_agents._impl.model_bridge import SdkModelBridge
        from loopwright.models.openai_chat import OpenAIChatModel
        from loopwright.models.openai_responses import OpenAIResponsesModel

        natives = SdkModelBridge | OpenAIChatModel | OpenAIResponsesModel | LitellmNative
        return isinstance(self._inner, natives)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        driver = self._driver
        from loopwright.compat.openai_agents._impl.items import message_items

        if self.answers_in_json and request.response_format is None:
            from loopwright.compat.openai_agents._impl.output import response_format_of

            request = dataclasses.replace(request, response_format=response_format_of(self._agent))
        items = [i for m in request.messages for i in message_items(m)]
        await driver.hooks_both(
            self._agent, "on_llm_start", driver.wrapper, self._agent, request.system, items
        )
        span = driver.run_trace.model_call(self._agent, self._span_kind(), self.name)
        include = driver.run_trace.include_data
        if include and span is not None and isinstance(span.span_data, GenerationSpanData):
            span.span_data.input = items
        try:
            async for event in self._inner.stream(request):
                if isinstance(event, NativeResponse):
                    response = driver.record_response(event)
                    _fill_model_span(span, response, include)
                    await driver.hooks_both(
                        self._agent, "on_llm_end", driver.wrapper, self._agent, response
                    )
                yield event
        except BaseException as exc:
            if span is not None:
                span.set_error({"message": str(exc) or type(exc).__name__, "data": None})
            raise
        finally:
            if span is not None:
                span.finish()

    def _span_kind(self) -> str:
        """That SDK's span for this model: a Responses model makes a response span, a
        user's Model its own spans, any other a generation span."""
        from loopwright.compat.openai_agents._impl.model_bridge import SdkModelBridge
        from loopwright.models.openai_responses import OpenAIResponsesModel

        if isinstance(self._inner, SdkModelBridge):
            return "none"
        return "response" if isinstance(self._inner, OpenAIResponsesModel) else "generation"


def _fill_model_span(span: Span | None, response: ModelResponse, include_data: bool) -> None:
    if span is None:
        return
    usage = {
        "input_tokens": response.usage.input_tokens,
        "output_tokens": response.usage.output_tokens,
    }
    data = span.span_data
    if isinstance(data, GenerationSpanData):
        data.output = response.to_input_items() if include_data else None
        data.usage = usage
    elif isinstance(data, ResponseSpanData):
        data.response = response
        data.usage = usage


def model_response(event: NativeResponse, usage: Any, counter: int) -> ModelResponse:
    message = AssistantMessage(event.content, model=event.model, message_id=event.message_id)
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

    output: list[Any] = []
    for item in assistant_items(message):
        if item.get("type") == "function_call":
            output.append(ResponseFunctionToolCall.model_validate(item))
        elif item.get("type") == "message":
            output.append(ResponseOutputMessage.model_validate(item))
    return ModelResponse(output, usage, event.message_id or f"resp_{counter}")


Callback = Callable[..., Awaitable[Any]]


def result_text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    return "".join(getattr(b, "text", "") for b in result.content)
