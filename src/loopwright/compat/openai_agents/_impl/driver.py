"""One Runner run: a native loopwright session driven on behalf of the OpenAI Agents layer.

The native loop runs in its own task and its messages reach the Runner through a queue,
with the run items each one stands for. A tool that needs approval pauses the run there:
the native run defers it and ends ``pending_approval`` (the session is in the store), the
Runner returns a result with ``interruptions``, and ``Runner.run(agent, state)`` — in this
process or another — resumes that session with the decisions (``RunState``).

The run's parts take only what they use: the tools a ``ToolScope``, the model a
``ModelScope``, the agents' assembly (``NativeAgents``) those and the run's settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from loopwright.client import open_session
from loopwright.compat.openai_agents._impl.approvals import Approvals, Decision
from loopwright.compat.openai_agents._impl.context import RunContextWrapper, run_context
from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.guardrail_bridge import GuardrailBridge
from loopwright.compat.openai_agents._impl.hook_calls import LifecycleHooks
from loopwright.compat.openai_agents._impl.input import to_conversation
from loopwright.compat.openai_agents._impl.items import (
    HandoffOutputItem,
    ModelResponse,
    ToolApprovalItem,
    function_call,
)
from loopwright.compat.openai_agents._impl.native_agents import NativeAgents, RunSettings
from loopwright.compat.openai_agents._impl.output import tool_use_stops
from loopwright.compat.openai_agents._impl.ports import AgentLike
from loopwright.compat.openai_agents._impl.response_log import ResponseLog
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.compat.openai_agents._impl.run_items import (
    assistant_run_items,
    tool_output_run_items,
)
from loopwright.compat.openai_agents._impl.run_model import ModelScope
from loopwright.compat.openai_agents._impl.run_tool import ToolOutputs, ToolScope
from loopwright.compat.openai_agents._impl.run_trace import RunTrace, reset_trace
from loopwright.compat.openai_agents._impl.run_values import (
    DEFAULT_MAX_TURNS,
    Delivered,
    Event,
    Failed,
)
from loopwright.loop.run import agent_loop
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    Message,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.session.session import Session
from loopwright.types import PermissionResultAllow

__all__ = ["DEFAULT_MAX_TURNS", "Decision", "Delivered", "Resumption", "RunDriver"]

CONTINUE_FROM_ASSISTANT = "Continue from your last message."


@dataclass(frozen=True, slots=True)
class Resumption:
    """What a RunState hands a run that goes on with its stored session."""

    session_id: str
    approvals: dict[str, PermissionResultAllow]
    earlier_items: list[Any]
    decisions: dict[str, Decision] = field(default_factory=dict[str, Decision])
    always: dict[str, bool] = field(default_factory=dict[str, bool])
    cwd: str | None = None


class RunDriver:
    def __init__(
        self,
        agent: AgentLike,
        input_items: list[Any],
        *,
        context: Any,
        max_turns: int,
        hooks: Any,
        run_config: RunConfig,
        streaming: bool,
        resumption: Resumption | None = None,
    ) -> None:
        if max_turns < 1:
            raise UserError(f"max_turns must be at least 1, got {max_turns}")
        self.starting_agent: Any = agent
        self.current_agent: Any = agent
        self.input_items = input_items
        self.wrapper: RunContextWrapper[Any] = (
            context if isinstance(context, RunContextWrapper) else RunContextWrapper(context)
        )
        self.wrapper.turn_input = list(input_items)
        self.max_turns = max_turns
        self.resumption = resumption
        self.cwd = (resumption.cwd if resumption else None) or os.getcwd()
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.new_items: list[Any] = list(resumption.earlier_items) if resumption else []
        self.interruptions: list[ToolApprovalItem] = []
        self.approvals = Approvals(
            self.wrapper,
            run_config.tool_error_formatter,
            dict(resumption.decisions) if resumption else {},
            dict(resumption.always) if resumption else {},
        )
        self.hooks = LifecycleHooks(hooks, self.wrapper)
        self.run_trace = RunTrace(run_config)
        self.responses = ResponseLog(self.wrapper)
        self.tool_outputs: ToolOutputs = {}
        self.guardrails = GuardrailBridge(input_items, self.wrapper, run_config, self.run_trace)
        self.native = NativeAgents(
            RunSettings(run_config, max_turns, streaming, self.cwd),
            self.wrapper,
            self.guardrails,
            ToolScope(self.hooks, self.run_trace, self.tool_outputs, self.approvals),
            ModelScope(self.hooks, self.run_trace, self.responses),
            self.approvals,
            history=self,
        )
        self.result: ResultMessage | None = None
        self.stop_output: tuple[Any] | None = None
        self.session_id: str | None = None
        self.prior: list[ConversationMessage] = []
        self.task: asyncio.Task[None] | None = None
        self.complete = False

    @property
    def raw_responses(self) -> list[ModelResponse]:
        return self.responses.responses

    # ------------------------------------------------------------------ start

    async def start(self) -> None:
        if self.resumption is not None:
            await self._resume(self.resumption)
            return
        conversation = to_conversation(self.input_items)
        if not conversation.messages:
            raise UserError("the input holds no message; give the agent something to do")
        if not isinstance(conversation.messages[-1], UserMessage):
            # The Responses API lets a model go on from its own last turn; loopwright's loop
            # always answers a user turn, so an input ending with the assistant gets one.
            conversation.messages.append(UserMessage(CONTINUE_FROM_ASSISTANT))
        options = await self.native.options(self.starting_agent, conversation.system)
        session = await open_session(options)
        self.session_id = session.session_id
        for earlier in conversation.messages[:-1]:  # recorded: a RunState resumes from them
            await session.conversation.append(earlier)
        self.prior = list(conversation.messages[:-1])
        prompt = conversation.messages[-1]
        assert isinstance(prompt, UserMessage)
        await self.hooks.agent_started(self.starting_agent)
        self.run_trace.start(self.starting_agent)
        bound = self.run_trace.bind()  # the run's task sees the run's trace as current
        try:
            with run_context(self.wrapper):
                self.task = asyncio.create_task(self._pump(session, prompt))
        finally:
            reset_trace(bound)

    async def _resume(self, resumption: Resumption) -> None:
        """Go on with a stored run whose calls waited: they run (or are rejected by the
        RunTool) now, and the loop continues."""
        options = await self.native.options(self.starting_agent, ())
        options = dataclasses.replace(
            options, resume=resumption.session_id, approvals=resumption.approvals
        )
        session = await open_session(options)
        self.session_id = session.session_id
        await self.hooks.agent_started(self.starting_agent)
        with run_context(self.wrapper):
            self.task = asyncio.create_task(self._pump(session, None))

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
        handoffs = self.native.handoff_tools
        items: list[Any] = []
        switched: tuple[Any, Any] | None = None
        match message:
            case AssistantMessage():
                items = assistant_run_items(message, agent, handoffs)
            case UserMessage():
                earlier = self.new_items
                outputs = self.tool_outputs
                items = tool_output_run_items(message, agent, earlier, handoffs, outputs)
            case SystemMessage(subtype="handoff", data=data):
                target = self.native.agents.get(str(data.get("to_agent")), agent)
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
                await self.hooks.agent_handed_off(agent, target)
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

    async def _check_tool_use_behavior(self, message: UserMessage, session: Session) -> None:
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


_FAILURES = {
    "error_max_turns": "Max turns exceeded",
    "error_guardrail_tripped": "Guardrail tripwire triggered",
}


def _failed(result: ResultMessage | None) -> str | None:
    if result is None or result.subtype == "success":
        return None
    return _FAILURES.get(result.subtype, "; ".join(result.errors) or result.subtype)


def _call(pending: dict[str, Any]) -> ToolUseBlock:
    return ToolUseBlock(str(pending["tool_use_id"]), str(pending["tool_name"]), pending["input"])
