"""One Runner run: a native loopwright session driven on behalf of the OpenAI Agents layer.

The native loop runs in its own task and its messages reach the Runner through a queue,
with the run items each one stands for. A tool that needs approval pauses the run there:
the native run defers it and ends ``pending_approval`` (the session is in the store), the
Runner returns a result with ``interruptions``, and ``Runner.run(agent, state)`` — in this
process or another — resumes that session with the decisions (``RunState``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from loopwright.client import open_session
from loopwright.compat._model_choice import warn_ignored
from loopwright.compat.openai_agents._impl.agent import Agent, tool_enabled
from loopwright.compat.openai_agents._impl.context import RunContextWrapper, Usage, run_context
from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.guardrail_bridge import GuardrailBridge
from loopwright.compat.openai_agents._impl.handoffs import Handoff, as_handoff
from loopwright.compat.openai_agents._impl.input import to_conversation
from loopwright.compat.openai_agents._impl.items import (
    HandoffCallItem,
    HandoffOutputItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    function_call,
    function_output,
    output_message,
    reasoning_item,
)
from loopwright.compat.openai_agents._impl.mcp import mcp_tools
from loopwright.compat.openai_agents._impl.model_bridge import SdkModelBridge
from loopwright.compat.openai_agents._impl.model_interface import Model as SdkModel
from loopwright.compat.openai_agents._impl.models import ClientModel, native_model
from loopwright.compat.openai_agents._impl.output import output_format_for
from loopwright.compat.openai_agents._impl.providers import provided_model
from loopwright.compat.openai_agents._impl.run_trace import RunTrace, reset_trace
from loopwright.compat.openai_agents._impl.wrappers import (
    RunModel,
    RunTool,
    call_hook,
    model_response,
)
from loopwright.guardrails import guarded_tool
from loopwright.hooks.runner import HookMatcher
from loopwright.loop.run import agent_loop
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Message,
    ResultMessage,
    SystemMessage,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.base import ModelResponse as NativeResponse
from loopwright.models.base import ToolSpec
from loopwright.options import Options
from loopwright.session.session import Session
from loopwright.subagents.handoffs import HandoffAgent
from loopwright.subagents.handoffs import handoff as native_handoff
from loopwright.types import PermissionResultAllow

DEFAULT_MAX_TURNS = 10
CONTINUE_FROM_ASSISTANT = "Continue from your last message."


@dataclass(frozen=True, slots=True)
class Delivered:
    """One native message and the run items it stands for."""

    message: Message
    items: list[Any]
    handoff: tuple[Any, Any] | None = None  # (source agent, target agent)


@dataclass(frozen=True, slots=True)
class Failed:
    error: BaseException


Event = Delivered | Failed | None


@dataclass
class Decision:
    approved: bool
    message: str | None = None


class RunDriver:
    def __init__(
        self,
        agent: Agent[Any],
        input_items: list[Any],
        *,
        context: Any,
        max_turns: int,
        hooks: Any,
        run_config: Any,
        streaming: bool,
    ) -> None:
        if max_turns < 1:
            raise UserError(f"max_turns must be at least 1, got {max_turns}")
        self.starting_agent = agent
        self.current_agent: Any = agent
        self.input_items = input_items
        self.wrapper = (
            context if isinstance(context, RunContextWrapper) else RunContextWrapper(context)
        )
        self.wrapper.turn_input = list(input_items)
        self.max_turns = max_turns
        self.hooks = hooks
        self.run_config = run_config
        self.streaming = streaming
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.new_items: list[Any] = []
        self.raw_responses: list[ModelResponse] = []
        self.interruptions: list[ToolApprovalItem] = []
        self.decisions: dict[str, Decision] = {}
        self.always: dict[str, bool] = {}
        # Tools whose calls may need approval, by name (the PreToolUse hook asks them).
        self.approval_tools: dict[str, RunTool] = {}
        # The stored session a RunState resumes, with the answers for its waiting calls.
        self.resuming: tuple[str, dict[str, PermissionResultAllow]] | None = None
        self.session_id: str | None = None
        self.cwd = os.getcwd()
        self.tool_outputs: dict[str, tuple[Any, Any]] = {}
        self.guardrails = GuardrailBridge(self)
        self.result: ResultMessage | None = None
        self.stop_output: tuple[Any] | None = None
        self.agents: dict[str, Any] = {}
        self.handoff_tools: dict[str, Handoff] = {}
        self.prior: list[ConversationMessage] = []
        self.task: asyncio.Task[None] | None = None
        self.complete = False
        self.run_trace = RunTrace(run_config)

    # ------------------------------------------------------------------ start

    async def start(self) -> None:
        if self.resuming is not None:
            await self._resume(*self.resuming)
            return
        conversation = to_conversation(self.input_items)
        if not conversation.messages:
            raise UserError("the input holds no message; give the agent something to do")
        if not isinstance(conversation.messages[-1], UserMessage):
            # The Responses API lets a model go on from its own last turn; loopwright's loop
            # always answers a user turn, so an input ending with the assistant gets one.
            conversation.messages.append(UserMessage(CONTINUE_FROM_ASSISTANT))
        options = await self.native_options(self.starting_agent, conversation.system)
        session = await open_session(options)
        self.session_id = session.session_id
        for earlier in conversation.messages[:-1]:  # recorded: a RunState resumes from them
            await session.conversation.append(earlier)
        self.prior = list(conversation.messages[:-1])
        prompt = conversation.messages[-1]
        assert isinstance(prompt, UserMessage)
        await self.agent_started(self.starting_agent)
        self.run_trace.start(self.starting_agent)
        bound = self.run_trace.bind()  # the run's task sees the run's trace as current
        try:
            with run_context(self.wrapper):
                self.task = asyncio.create_task(self._pump(session, prompt))
        finally:
            reset_trace(bound)

    async def _resume(self, session_id: str, approvals: dict[str, PermissionResultAllow]) -> None:
        """Go on with a stored run whose calls waited: they run (or are rejected by the
        RunTool) now, and the loop continues."""
        options = await self.native_options(self.starting_agent, ())
        options = dataclasses.replace(options, resume=session_id, approvals=approvals)
        session = await open_session(options)
        self.session_id = session.session_id
        await self.agent_started(self.starting_agent)
        with run_context(self.wrapper):
            self.task = asyncio.create_task(self._pump(session, None))

    async def _defer_hook(self, data: dict[str, Any], call_id: str | None, _: Any) -> Any:
        """PreToolUse: a call whose tool needs approval waits (the run ends pending)."""
        tool = self.approval_tools.get(str(data.get("tool_name")))
        if tool is None or tool.name in self.always or call_id in self.decisions:
            return {}
        input = data.get("tool_input")
        if not await tool.needs_approval_for(input if isinstance(input, dict) else {}, call_id):
            return {}
        reason = f"{tool.name} needs approval"
        specific = {"hookEventName": "PreToolUse", "permissionDecision": "defer"}
        return {"hookSpecificOutput": {**specific, "permissionDecisionReason": reason}}

    async def native_options(self, agent: Any, system_extra: Sequence[str]) -> Options:
        settings = agent.model_settings.resolve(getattr(self.run_config, "model_settings", None))
        warn_ignored("ModelSettings", settings.ignored())
        system = await agent.get_system_prompt(self.wrapper) or ""
        if system_extra:
            system = "\n\n".join([system, *system_extra]).strip()
        model = self.run_model(agent)
        # A model with native structured output answers in JSON (see RunModel); the others
        # deliver an output_type through loopwright's StructuredOutput tool.
        output_format = None if model.answers_in_json else output_format_for(agent.output_type)
        return Options(
            model=model,
            system_prompt=system,
            tools=await self.agent_tools(agent),
            guardrails=self.guardrails.for_start(agent) + self.guardrails.output_of(agent),
            permission_mode="bypassPermissions",
            setting_sources=[],
            # Stored, so that a run paused for approvals resumes from any process.
            cwd=self.cwd,
            hooks={"PreToolUse": [HookMatcher(None, [self._defer_hook])]},
            # That SDK counts model calls; loopwright counts tool rounds (one fewer). A
            # structured answer is a StructuredOutput call here, so it gets its own round.
            max_turns=self.max_turns - 1 + (1 if output_format is not None else 0),
            max_tokens=settings.max_tokens,
            effort=settings.effort,
            max_retries=_retries(settings),
            output_format=output_format,
            include_partial_messages=self.streaming,
        )

    def run_model(self, agent: Any) -> RunModel:
        config_model = getattr(self.run_config, "model", None)
        spec = provided_model(
            config_model if config_model is not None else agent.model, self.run_config
        )
        if isinstance(spec, SdkModel) and not isinstance(spec, ClientModel):
            return RunModel(SdkModelBridge(spec, agent, self), agent, self)
        return RunModel(native_model(spec), agent, self)

    def sdk_tools(self, agent: Any, specs: Sequence[ToolSpec]) -> tuple[list[Any], list[Any]]:
        """The tools and handoffs of a model request as that SDK's objects (for a user's
        Model); a tool the agent does not list (an MCP tool) is described by name."""
        own = {str(getattr(t, "name", "")): t for t in agent.tools}
        tools: list[Any] = []
        handoffs: list[Any] = []
        for spec in specs:
            if spec.name in self.handoff_tools:
                handoffs.append(self.handoff_tools[spec.name])
            elif spec.name in own:
                tools.append(own[spec.name])
            else:
                tools.append(_described_tool(spec))
        return tools, handoffs

    async def agent_tools(self, agent: Any) -> list[Any]:
        self.agents[agent.name] = agent
        tools: list[Any] = [
            RunTool(t, agent, self) for t in await mcp_tools(agent.mcp_servers, self.wrapper, agent)
        ]
        for item in agent.tools:
            if await tool_enabled(item, self.wrapper, agent):
                wrapped = RunTool(item, agent, self)
                if getattr(item, "needs_approval", False):
                    self.approval_tools[wrapped.name] = wrapped
                tools.append(guarded_tool(wrapped, self.guardrails.of_tool(item, agent)))
        for entry in agent.handoffs:
            described = as_handoff(entry)
            if await tool_enabled(described, self.wrapper, agent):
                tools.append(self.native_handoff(described, agent))
        return tools

    def native_handoff(self, described: Handoff, source: Any) -> Any:
        self.handoff_tools[described.tool_name] = described
        self.agents[described.agent.name] = described.agent

        async def target() -> HandoffAgent:
            return await self.handoff_agent(described.agent)

        async def on_handoff(arguments: dict[str, Any]) -> None:
            await described.run_callback(self.wrapper, arguments)

        from loopwright.compat.openai_agents._impl.handoff_filter import history_filter

        chosen_filter = described.input_filter or getattr(
            self.run_config, "handoff_input_filter", None
        )
        return native_handoff(
            target,
            tool_name=described.tool_name,
            tool_description=described.tool_description,
            on_handoff=on_handoff,
            input_schema=described.input_json_schema,
            input_filter=history_filter(self, chosen_filter) if chosen_filter else None,
            agent_name=described.agent_name,
        )

    async def handoff_agent(self, agent: Any) -> HandoffAgent:
        settings = agent.model_settings
        return HandoffAgent(
            name=agent.name,
            instructions=await agent.get_system_prompt(self.wrapper) or "",
            tools=await self.agent_tools(agent),
            model=self.run_model(agent),
            max_tokens=settings.max_tokens,
            effort=settings.effort,
            guardrails=self.guardrails.output_of(agent),
        )

    # ------------------------------------------------------------------ the pump

    async def _pump(self, session: Session, prompt: UserMessage | None) -> None:
        failure: BaseException | None = None
        try:
            async for message in agent_loop(session, prompt):
                delivered = await self._observe(message)
                if isinstance(message, UserMessage) and self.stop_output is None:
                    await self._check_tool_use_behavior(message, session)
                self.queue.put_nowait(delivered)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # reported to whoever drives the run
            failure = exc
            self.queue.put_nowait(Failed(exc))
        finally:
            with contextlib.suppress(Exception):
                await session.aclose()
            self.run_trace.end(failure, _failed(self.result))
            self.queue.put_nowait(None)

    async def _observe(self, message: Message) -> Delivered:
        agent = self.current_agent
        items: list[Any] = []
        switched: tuple[Any, Any] | None = None
        match message:
            case AssistantMessage():
                items = self._assistant_items(message, agent)
            case UserMessage():
                items = self._tool_output_items(message, agent)
            case SystemMessage(subtype="handoff", data=data):
                target = self.agents.get(str(data.get("to_agent")), agent)
                call_id = str(data.get("tool_use_id"))
                raw = {
                    "call_id": call_id,
                    "output": f'{{"assistant": "{target.name}"}}',
                    "type": "function_call_output",
                }
                items = [HandoffOutputItem(agent, raw, source_agent=agent, target_agent=target)]
                switched = (agent, target)
                self.run_trace.handoff(agent, target)
                self.current_agent = target
                await self.agent_handed_off(agent, target)
            case ResultMessage():
                self.result = message
                self.interruptions = [
                    ToolApprovalItem(agent, function_call(_call(c)), tool_name=c["tool_name"])
                    for c in message.pending_approvals
                ]
            case _:
                pass
        self.new_items.extend(items)
        return Delivered(message, items, switched)

    def _assistant_items(self, message: AssistantMessage, agent: Any) -> list[Any]:
        items: list[Any] = []
        message_id = message.message_id or f"msg_{message.uuid}"
        for index, block in enumerate(message.content):
            if isinstance(block, ThinkingBlock):
                items.append(ReasoningItem(agent, reasoning_item(block, index, message_id)))
        if message.text:
            items.append(MessageOutputItem(agent, output_message(message_id, message.text)))
        for call in message.tool_calls:
            if call.name == "StructuredOutput":
                continue
            kind = HandoffCallItem if call.name in self.handoff_tools else ToolCallItem
            items.append(kind(agent, function_call(call)))
        return items

    def _tool_output_items(self, message: UserMessage, agent: Any) -> list[Any]:
        items: list[Any] = []
        for block in message.blocks:
            if not isinstance(block, ToolResultBlock):
                continue
            if self._is_structured(block):
                continue
            is_handoff = self._call_name(block.tool_use_id) in self.handoff_tools
            if is_handoff and not block.is_error:
                continue  # reported as a HandoffOutputItem with the switch
            _, raw = self.tool_outputs.get(block.tool_use_id, (None, block.text))
            items.append(ToolCallOutputItem(agent, function_output(block), output=raw))
        return items

    def _call_name(self, call_id: str) -> str | None:
        for item in reversed(self.new_items):
            raw = getattr(item, "raw_item", None)
            if getattr(raw, "call_id", None) == call_id:
                return str(raw.name)  # type: ignore[union-attr]
        return None

    def _is_structured(self, block: ToolResultBlock) -> bool:
        """The answer to a StructuredOutput call (no tool call item was made for it)."""
        return (
            self._call_name(block.tool_use_id) is None
            and block.tool_use_id not in self.tool_outputs
        )

    async def _check_tool_use_behavior(self, message: UserMessage, session: Session) -> None:
        from loopwright.compat.openai_agents._impl.output import tool_use_stops

        outputs = [
            (block, self.tool_outputs[block.tool_use_id])
            for block in message.blocks
            if isinstance(block, ToolResultBlock) and block.tool_use_id in self.tool_outputs
        ]
        if not outputs:
            return
        stop = await tool_use_stops(self.current_agent, self.wrapper, outputs)
        if stop is not None:
            self.stop_output = stop
            session.interrupt_event.set()  # ends the run before the model is asked again

    # ------------------------------------------------------------------ consuming

    async def events(self) -> AsyncIterator[Delivered]:
        """Delivered messages until the run ends or pauses for approvals."""
        while True:
            event = await self.queue.get()
            match event:
                case None:
                    self.complete = True
                    return
                case Failed(error=error):
                    raise error
                case Delivered():
                    yield event

    async def approval(self, agent: Any, call: ToolUseBlock, name: str) -> str | None:
        """The decision on ``call`` (it waited, and was answered): the rejection message,
        or None when it may run."""
        if name in self.always:
            return None if self.always[name] else await self._rejection(name, None)
        decision = self.decisions.pop(call.id, None)
        if decision is None:  # the native gate let it through: approved there
            return None
        return None if decision.approved else await self._rejection(name, decision.message)

    async def _rejection(self, name: str, message: str | None) -> str:
        if message is not None:
            return message
        formatter = getattr(self.run_config, "tool_error_formatter", None)
        if formatter is not None:
            from loopwright.compat.openai_agents._impl.output import format_rejection

            formatted = await format_rejection(formatter, name, self.wrapper)
            if formatted is not None:
                return formatted
        return f"Tool execution was not approved: the call to {name} was rejected."

    def decide(self, item: ToolApprovalItem, decision: Decision, always: bool = False) -> None:
        if always:
            self.always[item.name] = decision.approved
        self.decisions[item.call_id] = decision

    # ------------------------------------------------------------------ hooks

    async def hooks_both(self, agent: Any, name: str, *args: Any) -> None:
        await call_hook(self.hooks, name, *args)
        await call_hook(getattr(agent, "hooks", None), name, *args)

    async def agent_started(self, agent: Any) -> None:
        await call_hook(self.hooks, "on_agent_start", self.wrapper, agent)
        await call_hook(getattr(agent, "hooks", None), "on_start", self.wrapper, agent)

    async def agent_ended(self, agent: Any, output: Any) -> None:
        await call_hook(self.hooks, "on_agent_end", self.wrapper, agent, output)
        await call_hook(getattr(agent, "hooks", None), "on_end", self.wrapper, agent, output)

    async def agent_handed_off(self, source: Any, target: Any) -> None:
        await call_hook(self.hooks, "on_handoff", self.wrapper, source, target)
        await call_hook(getattr(target, "hooks", None), "on_handoff", self.wrapper, target, source)
        await self.agent_started(target)

    def record_response(self, event: NativeResponse) -> ModelResponse:
        # That SDK's input_tokens is the whole prompt, cached part included (the cached
        # part is also in input_tokens_details); ours counts uncached tokens only.
        prompt_tokens = event.usage.context_tokens
        usage = Usage(
            requests=1,
            input_tokens=prompt_tokens,
            output_tokens=event.usage.output_tokens,
            total_tokens=prompt_tokens + event.usage.output_tokens,
        )
        usage.input_tokens_details.cached_tokens = event.usage.cache_read_input_tokens
        self.wrapper.usage.add(usage)
        self.wrapper.usage.request_usage_entries.append(usage)
        response = model_response(event, usage, len(self.raw_responses) + 1)
        self.raw_responses.append(response)
        return response


_FAILURES = {
    "error_max_turns": "Max turns exceeded",
    "error_guardrail_tripped": "Guardrail tripwire triggered",
}


def _failed(result: ResultMessage | None) -> str | None:
    if result is None or result.subtype == "success":
        return None
    return _FAILURES.get(result.subtype, "; ".join(result.errors) or result.subtype)


def _described_tool(spec: ToolSpec) -> Any:
    from loopwright.compat.openai_agents._impl.tools import FunctionTool

    async def not_here(context: Any, arguments: str) -> str:
        return f"{spec.name} runs in loopwright's loop, not through the model"

    return FunctionTool(spec.name, spec.description, dict(spec.input_schema), not_here)


def _call(pending: dict[str, Any]) -> ToolUseBlock:
    return ToolUseBlock(str(pending["tool_use_id"]), str(pending["tool_name"]), pending["input"])


def _retries(settings: Any) -> int:
    from loopwright.compat.openai_agents._impl.retry import max_retries_of

    chosen = max_retries_of(settings.retry)
    return Options().max_retries if chosen is None else chosen
