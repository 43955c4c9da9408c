"""Results and resumable state of a Runner run: ``RunResult``, ``RunResultStreaming``,
``RunState`` and ``RunConfig``."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

from loopwright.compat.openai_agents._impl.approvals import Decision
from loopwright.compat.openai_agents._impl.driver import Resumption, RunDriver
from loopwright.compat.openai_agents._impl.errors import (
    AgentsException,
    MaxTurnsExceeded,
    UserError,
)
from loopwright.compat.openai_agents._impl.items import (
    MessageOutputItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    message_items,
)
from loopwright.compat.openai_agents._impl.output import output_of
from loopwright.compat.openai_agents._impl.stream_events import (
    AgentUpdatedStreamEvent,
    EventTranslator,
)
from loopwright.messages import ResultMessage
from loopwright.stores import SessionError, get_session_messages
from loopwright.types import PermissionResultAllow

T = TypeVar("T")

RESPONSE_PREFIX = "resp_"


async def conversation_of(response_id: str) -> list[dict[str, Any]]:
    """The conversation a run ended with, read back from its stored session: the
    response id names the session, so it works in any process that shares the store."""
    session_id = response_id.removeprefix(RESPONSE_PREFIX)
    try:
        messages = await get_session_messages(session_id, cwd=os.getcwd())
    except SessionError:
        messages = []
    if not messages or not response_id.startswith(RESPONSE_PREFIX):
        raise UserError(
            f"previous_response_id {response_id!r} is not a run stored here (another "
            "machine's, or its session was deleted); pass the earlier items instead "
            "(result.to_input_list() + [new message])"
        )
    return [dict(item) for message in messages for item in message_items(message)]


class RunResultBase:
    """What every result offers: items, responses, guardrail results, usage, the state."""

    def __init__(self, driver: RunDriver, input: Any) -> None:
        self._driver = driver
        self.input = input
        self.final_output: Any = None
        self.last_response_id: str | None = None
        # The Runner's session= (the run is stored there when it ends) and the new input.
        self._session: Any = None
        self._fresh_input: list[Any] = []

    @property
    def new_items(self) -> list[Any]:
        return self._driver.new_items

    @property
    def raw_responses(self) -> list[Any]:
        return self._driver.raw_responses

    @property
    def input_guardrail_results(self) -> list[Any]:
        return self._driver.guardrails.input_results

    @property
    def output_guardrail_results(self) -> list[Any]:
        return self._driver.guardrails.output_results

    @property
    def context_wrapper(self) -> Any:
        return self._driver.wrapper

    @property
    def last_agent(self) -> Any:
        return self._driver.current_agent

    @property
    def interruptions(self) -> list[ToolApprovalItem]:
        return list(self._driver.interruptions)

    @property
    def raw_result(self) -> ResultMessage | None:
        return self._driver.result

    def final_output_as(self, cls: type[T], raise_if_incorrect_type: bool = False) -> T:
        if raise_if_incorrect_type and not isinstance(self.final_output, cls):
            raise TypeError(f"final_output is a {type(self.final_output).__name__}, not {cls}")
        return self.final_output  # type: ignore[no-any-return]

    def to_input_list(self) -> list[dict[str, Any]]:
        """The run's input and every item it produced, ready to be the next run's input."""
        return [*self._driver.input_items, *(i.to_input_item() for i in self.new_items)]

    def to_state(self) -> RunState:
        return RunState(self._driver)

    def _settle(self) -> None:
        """Set ``final_output`` (or raise the SDK's exception) once the run has ended."""
        driver = self._driver
        result = driver.result
        if driver.interruptions or result is None:
            return
        if driver.guardrails.tripped is not None and result.subtype == "error_guardrail_tripped":
            raise driver.guardrails.tripped
        if driver.stop_output is not None:
            self.final_output = driver.stop_output[0]
        elif result.subtype == "success":
            self.final_output = output_of(driver.current_agent, result)
        elif result.subtype == "error_max_turns":
            raise MaxTurnsExceeded(f"Max turns ({driver.max_turns}) exceeded", result)
        else:
            detail = "; ".join(result.errors) or result.subtype
            raise AgentsException(f"agent {driver.current_agent.name!r} run failed: {detail}")
        if driver.session_id is not None:  # the stored session is the response
            self.last_response_id = f"{RESPONSE_PREFIX}{driver.session_id}"

    def __str__(self) -> str:
        name = type(self).__name__
        return f"{name}(last_agent={self.last_agent.name!r}, final_output={self.final_output!r})"


class RunResult(RunResultBase):
    pass


class RunResultStreaming(RunResultBase):
    """A run in progress. Iterate ``stream_events()`` to drive it; afterwards
    ``final_output``, ``new_items`` and ``is_complete`` are set."""

    def __init__(self, driver: RunDriver, input: Any, starter: Any) -> None:
        super().__init__(driver, input)
        self._starter = starter
        self._cancelled = False
        self.is_complete = False
        self.max_turns = driver.max_turns

    @property
    def current_agent(self) -> Any:
        return self._driver.current_agent

    def cancel(self, mode: str = "immediate") -> None:
        """Stop after the event being handled; the stream then ends without a final output."""
        self._cancelled = True

    async def stream_events(self) -> AsyncIterator[Any]:
        if self.is_complete:
            return
        translator = EventTranslator()
        await self._starter()
        driver = self._driver  # the starter may have made the run's driver
        yield AgentUpdatedStreamEvent(driver.current_agent)
        try:
            async for delivered in driver.events():
                for event in translator.translate(delivered):
                    yield event
                if self._cancelled:
                    break
        finally:
            if self._cancelled and driver.task is not None:
                driver.task.cancel()
            self.is_complete = driver.complete or self._cancelled
        if not self._cancelled:
            self._settle()
            await self._finish()

    async def _finish(self) -> None:
        await self._driver_finish()

    async def _driver_finish(self) -> None:
        await after_run(self)


async def after_run(result: RunResultBase) -> None:
    """Store the run in its session and tell the hooks the agent ended."""
    driver = result._driver  # pyright: ignore[reportPrivateUsage]
    session = result._session  # pyright: ignore[reportPrivateUsage]
    if session is not None and not driver.interruptions:
        fresh = result._fresh_input  # pyright: ignore[reportPrivateUsage]
        await session.add_items([*fresh, *(i.to_input_item() for i in driver.new_items)])
    if not driver.interruptions and driver.result is not None:
        await driver.hooks.agent_ended(driver.current_agent, result.final_output)


class RunState:
    """A paused run: approve or reject each interruption, then ``Runner.run(agent, state)``.

    The state is the stored session plus the decisions: ``to_json()`` holds everything a
    resume needs, and ``from_json()`` in any process that shares the session store (the
    same ``LOOPWRIGHT_HOME`` and working directory) resumes it. Nothing is kept in memory
    beyond this object.
    """

    def __init__(self, driver: RunDriver | None, data: dict[str, Any] | None = None) -> None:
        self._driver = driver  # the run this state came from, when in this process
        self._data = data if data is not None else _state_data(driver)
        self._decisions: dict[str, Decision] = {
            key: Decision(bool(value["approved"]), value.get("message"))
            for key, value in (self._data.get("decisions") or {}).items()
        }
        self._always: dict[str, bool] = dict(self._data.get("always") or {})

    def get_interruptions(self) -> list[ToolApprovalItem]:
        if self._driver is not None:
            return list(self._driver.interruptions)
        return [_approval_item(i) for i in self._data.get("interruptions") or []]

    def approve(self, approval_item: ToolApprovalItem, always_approve: bool = False) -> None:
        self._decide(approval_item, Decision(True), always_approve)

    def reject(
        self,
        approval_item: ToolApprovalItem,
        always_reject: bool = False,
        *,
        rejection_message: str | None = None,
    ) -> None:
        self._decide(approval_item, Decision(False, rejection_message), always_reject)

    def _decide(self, item: ToolApprovalItem, decision: Decision, always: bool) -> None:
        waiting = {i["call_id"] for i in self._data.get("interruptions") or []}
        if item.call_id not in waiting:
            raise UserError(
                f"the call to {item.name} ({item.call_id}) is not an interruption of this "
                "state; approve or reject the items of state.get_interruptions()"
            )
        if always:
            self._always[item.name] = decision.approved
        self._decisions[item.call_id] = decision

    def to_json(self) -> dict[str, Any]:
        """The state as JSON: the stored session it resumes, the calls that wait, the
        decisions taken so far, and the run's items (for display and replay)."""
        return {
            **self._data,
            "decisions": {
                key: {"approved": d.approved, "message": d.message}
                for key, d in self._decisions.items()
            },
            "always": dict(self._always),
        }

    def to_string(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    async def from_json(cls, initial_agent: Any, state_json: dict[str, Any], **_: Any) -> RunState:
        if state_json.get("$schemaVersion") != STATE_SCHEMA or not state_json.get("session_id"):
            raise UserError(
                "this is not a loopwright RunState (no $schemaVersion "
                f"{STATE_SCHEMA!r} with a session_id); pass what state.to_json() returned"
            )
        return cls(None, dict(state_json))

    @classmethod
    async def from_string(cls, initial_agent: Any, state_string: str, **kwargs: Any) -> RunState:
        return await cls.from_json(initial_agent, json.loads(state_string), **kwargs)

    def resumed_driver(self, agent: Any, **run: Any) -> RunDriver:
        """A driver that goes on with the stored session; every interruption needs a
        decision first."""
        approvals: dict[str, PermissionResultAllow] = {}
        for item in self.get_interruptions():
            decision = self._decisions.get(item.call_id)
            if decision is None and item.name not in self._always:
                raise UserError(
                    f"the call to {item.name} ({item.call_id}) was neither approved nor "
                    "rejected; call state.approve(item) or state.reject(item) for each "
                    "interruption before resuming"
                )
            # Natively every answered call may go ahead: the Runner's tool wrapper gives
            # the model the rejection message instead of running a rejected one.
            approvals[item.call_id] = PermissionResultAllow()
        live = self._driver
        if run.get("context") is None and live is not None:
            run["context"] = live.wrapper
        # The resumed result reports the whole run, as that SDK does: earlier items first.
        earlier = live.new_items if live is not None else None
        resumption = Resumption(
            str(self._data["session_id"]),
            approvals,
            list(earlier) if earlier is not None else _run_items(self._data, agent),
            dict(self._decisions),
            dict(self._always),
            str(self._data.get("cwd") or "") or None,
        )
        original = list(self._data.get("original_input") or [])
        return RunDriver(agent, original, resumption=resumption, **run)


STATE_SCHEMA = "loopwright-2"


def _state_data(driver: RunDriver | None) -> dict[str, Any]:
    assert driver is not None
    if driver.session_id is None:
        raise UserError("this run has not started, so it has no state to save yet")
    history = [i for m in driver.prior for i in message_items(m)]
    return {
        "$schemaVersion": STATE_SCHEMA,
        "session_id": driver.session_id,
        "cwd": driver.cwd,
        "current_agent": {"name": driver.current_agent.name},
        "original_input": driver.input_items,
        "history": history,
        "generated_items": [i.to_input_item() for i in driver.new_items],
        "interruptions": [
            {"name": i.name, "call_id": i.call_id, "arguments": i.arguments}
            for i in driver.interruptions
        ],
    }


def _run_items(data: dict[str, Any], agent: Any) -> list[Any]:
    """Run items back from a state's JSON (messages, tool calls and their outputs)."""

    items: list[Any] = []
    for raw in data.get("generated_items") or []:
        match raw.get("type"):
            case "function_call":
                items.append(ToolCallItem(agent, ResponseFunctionToolCall.model_validate(raw)))
            case "function_call_output":
                items.append(ToolCallOutputItem(agent, dict(raw), output=raw.get("output")))
            case "message" if raw.get("role") == "assistant":
                items.append(MessageOutputItem(agent, ResponseOutputMessage.model_validate(raw)))
            case _:
                pass  # reasoning and handoff items: kept in the JSON, not rebuilt
    return items


def _approval_item(data: dict[str, Any]) -> ToolApprovalItem:

    call_id = str(data["call_id"])
    raw = ResponseFunctionToolCall(
        arguments=str(data.get("arguments") or "{}"),
        call_id=call_id,
        name=str(data["name"]),
        type="function_call",
        id=f"fc_{call_id}",
        status="completed",
    )
    return ToolApprovalItem(None, raw, tool_name=str(data["name"]))
