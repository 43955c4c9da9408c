"""Results and resumable state of a Runner run: ``RunResult``, ``RunResultStreaming``,
``RunState`` and ``RunConfig``."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from loopwright.compat._openai_agent_errors import AgentsException, MaxTurnsExceeded, UserError
from loopwright.compat._openai_driver import Decision, RunDriver
from loopwright.compat._openai_events import AgentUpdatedStreamEvent, EventTranslator
from loopwright.compat._openai_items import ToolApprovalItem, message_items
from loopwright.compat._openai_output import output_of
from loopwright.messages import ResultMessage

T = TypeVar("T")

# previous_response_id → the conversation so far; kept in this process (loopwright has no
# server holding responses), so an id from another process is unknown here.
_CONVERSATIONS: dict[str, list[dict[str, Any]]] = {}
# RunState.to_json() → the live run it stands for, for RunState.from_json() in this process.
_LIVE_STATES: dict[str, RunDriver] = {}


def conversation_of(response_id: str) -> list[dict[str, Any]]:
    if response_id not in _CONVERSATIONS:
        raise UserError(
            f"previous_response_id {response_id!r} is not a response of this process; "
            "loopwright keeps conversations in memory, so pass the earlier items instead "
            "(result.to_input_list() + [new message])"
        )
    return list(_CONVERSATIONS[response_id])


@dataclass
class RunConfig:
    model: Any = None
    model_provider: Any = None
    model_settings: Any = None
    handoff_input_filter: Any = None
    nest_handoff_history: bool = False
    input_guardrails: list[Any] | None = None
    output_guardrails: list[Any] | None = None
    tracing_disabled: bool = False
    tracing: dict[str, Any] | None = None  # {"include_task_and_turn_spans": False}
    trace_include_sensitive_data: bool = True
    workflow_name: str = "Agent workflow"
    trace_id: str | None = None
    group_id: str | None = None
    trace_metadata: dict[str, Any] | None = None
    session_input_callback: Any = None
    call_model_input_filter: Any = None
    tool_error_formatter: Any = None
    session_settings: Any = None
    extras: dict[str, Any] = field(default_factory=dict[str, Any])


class RunResultBase:
    """What every result offers: items, responses, guardrail results, usage, the state."""

    def __init__(self, driver: RunDriver, input: Any) -> None:
        self._driver = driver
        self.input = input
        self.final_output: Any = None
        self.last_response_id: str | None = None

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
        response_id = f"resp_{uuid.uuid4().hex}"
        _CONVERSATIONS[response_id] = self.to_input_list()
        self.last_response_id = response_id

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
        from loopwright.compat._openai_runner import after_run

        await after_run(self)


class RunState:
    """A paused run: approve or reject each interruption, then ``Runner.run(agent, state)``."""

    def __init__(self, driver: RunDriver) -> None:
        self._driver = driver

    def get_interruptions(self) -> list[ToolApprovalItem]:
        return list(self._driver.interruptions)

    def approve(self, approval_item: ToolApprovalItem, always_approve: bool = False) -> None:
        self._driver.decide(approval_item, Decision(True), always_approve)

    def reject(
        self,
        approval_item: ToolApprovalItem,
        always_reject: bool = False,
        *,
        rejection_message: str | None = None,
    ) -> None:
        self._driver.decide(approval_item, Decision(False, rejection_message), always_reject)

    def to_json(self) -> dict[str, Any]:
        """The state as JSON: the conversation so far, the pending calls, and a handle on the
        live run (resumable in this process only)."""
        handle = f"state_{uuid.uuid4().hex}"
        _LIVE_STATES[handle] = self._driver
        driver = self._driver
        history = [i for m in (driver.prior) for i in message_items(m)]
        return {
            "$schemaVersion": "loopwright-1",
            "live_run": handle,
            "current_agent": {"name": driver.current_agent.name},
            "original_input": driver.input_items,
            "history": history,
            "generated_items": [i.to_input_item() for i in driver.new_items],
            "interruptions": [
                {"name": i.name, "call_id": i.call_id, "arguments": i.arguments}
                for i in driver.interruptions
            ],
        }

    def to_string(self) -> str:
        import json

        return json.dumps(self.to_json())

    @classmethod
    async def from_json(cls, initial_agent: Any, state_json: dict[str, Any], **_: Any) -> RunState:
        handle = state_json.get("live_run")
        driver = _LIVE_STATES.get(str(handle))
        if driver is None:
            raise UserError(
                "this RunState belongs to a run of another process; loopwright resumes paused "
                "runs only in the process that paused them. Keep the process alive, or start "
                "a new run with the saved items (state_json['original_input'] + "
                "state_json['generated_items'])"
            )
        return cls(driver)

    @classmethod
    async def from_string(cls, initial_agent: Any, state_string: str, **kwargs: Any) -> RunState:
        import json

        return await cls.from_json(initial_agent, json.loads(state_string), **kwargs)
