"""What makes a call wait for approval, and how a later run in this process answers it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loopwright import (
    ApprovalError,
    Client,
    Options,
    PermissionResultAllow,
    PermissionResultDefer,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    UserMessage,
    query,
    tool,
)
from loopwright.hooks.runner import HookMatcher
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.stores import SQLiteStore, get_session_messages
from loopwright.types import ToolPermissionContext

RUNS: list[str] = []


@tool
def send(to: str) -> str:
    """Send a message."""
    RUNS.append(to)
    return f"sent to {to}"


@pytest.fixture(autouse=True)
def no_runs() -> None:
    RUNS.clear()


def _options(tmp_path: Path, *steps: Any, **extra: Any) -> Options:
    defaults: dict[str, Any] = {"permission_mode": "bypassPermissions"}
    return Options(
        model=ScriptedModel(list(steps)),
        tools=[send],
        session_store=f"sqlite:{tmp_path / 's.db'}",
        cwd=str(tmp_path),
        setting_sources=[],
        **{**defaults, **extra},
    )


async def _result(prompt: str | None, options: Options) -> ResultMessage:
    result = None
    async for message in query(prompt, options):
        if isinstance(message, ResultMessage):
            result = message
    assert result is not None
    return result


async def _deferred(tmp_path: Path, **extra: Any) -> ResultMessage:
    result = await _result("send it", _options(tmp_path, tool_call("send", to="bob"), **extra))
    assert result.subtype == "pending_approval", result.errors
    assert RUNS == []
    return result


async def test_can_use_tool_defers_with_its_reason(tmp_path: Path) -> None:
    def later(name: str, input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        return PermissionResultDefer("a manager signs off on mail")

    result = await _deferred(tmp_path, permission_mode="default", can_use_tool=later)
    assert result.pending_approvals[0]["reason"] == "a manager signs off on mail"


async def test_a_pre_tool_use_hook_defers(tmp_path: Path) -> None:
    async def hook(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        specific = {"hookEventName": "PreToolUse", "permissionDecision": "defer"}
        return {"hookSpecificOutput": {**specific, "permissionDecisionReason": "on-call decides"}}

    result = await _deferred(tmp_path, hooks={"PreToolUse": [HookMatcher("send", [hook])]})
    assert result.pending_approvals[0]["reason"] == "on-call decides"


async def test_a_defer_tools_rule_defers_the_calls_it_matches(tmp_path: Path) -> None:
    result = await _deferred(tmp_path, defer_tools=["send"])
    assert "matches approval rule send" in result.pending_approvals[0]["reason"]


async def test_a_deny_rule_beats_a_deferral(tmp_path: Path) -> None:
    options = _options(
        tmp_path,
        tool_call("send", to="bob"),
        text("ok"),
        defer_tools=["send"],
        disallowed_tools=["send(*)"],
    )
    result = await _result("send it", options)
    assert result.subtype == "success" and RUNS == []


async def test_a_later_run_answers_and_the_always_rule_holds_for_the_session(
    tmp_path: Path,
) -> None:
    first = await _deferred(tmp_path, defer_tools=["send"])
    call_id = first.pending_approvals[0]["tool_use_id"]
    always = PermissionResultAllow(updated_permissions=["send"])
    resumed = _options(
        tmp_path,
        tool_call("send", to="carol"),  # allowed by the "always" rule: no second wait
        text("both sent"),
        defer_tools=["send"],
        resume=first.session_id,
        approvals={call_id: always},
    )
    assert (await _result(None, resumed)).result == "both sent"
    assert RUNS == ["bob", "carol"]


async def test_an_approval_after_its_deadline_is_refused_and_the_call_is_denied(
    tmp_path: Path,
) -> None:
    first = await _deferred(tmp_path, defer_tools=["send"], approval_timeout_seconds=0.0)
    call_id = first.pending_approvals[0]["tool_use_id"]
    late = _options(
        tmp_path, text("x"), resume=first.session_id, approvals={call_id: PermissionResultAllow()}
    )
    with pytest.raises(ApprovalError, match="deadline"):
        await _result(None, late)
    # Any later resume denies it: the model learns it was not approved in time.
    plain = _options(tmp_path, text("understood"), defer_tools=["send"], resume=first.session_id)
    result = await _result(None, plain)
    assert result.result == "understood" and RUNS == []
    assert [d["tool_use_id"] for d in result.permission_denials] == [call_id]
    messages = await get_session_messages(first.session_id, store=SQLiteStore(tmp_path / "s.db"))
    answer = messages[-2]
    assert isinstance(answer, UserMessage) and "before its deadline" in str(answer.content)


async def test_resuming_without_answers_asks_can_use_tool_like_any_other_call(
    tmp_path: Path,
) -> None:
    first = await _deferred(tmp_path, defer_tools=["send"])
    asked: list[str] = []

    def prompt(name: str, input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        asked.append(ctx.tool_use_id)
        return PermissionResultDeny("no")

    # What the REPL does for a resumed session: its prompt is can_use_tool.
    resumed = _options(
        tmp_path,
        text("fine"),
        resume=first.session_id,
        permission_mode="default",
        can_use_tool=prompt,
    )
    assert (await _result(None, resumed)).result == "fine"
    assert asked == [first.pending_approvals[0]["tool_use_id"]] and RUNS == []


async def test_a_prompt_to_a_session_whose_calls_still_wait_is_not_sent(tmp_path: Path) -> None:
    first = await _deferred(tmp_path, defer_tools=["send"])
    again = _options(tmp_path, defer_tools=["send"], resume=first.session_id)
    result = await _result("what now?", again)
    assert result.subtype == "pending_approval"
    assert any("prompt was not sent" in e for e in result.errors)


async def test_a_client_answers_the_calls_it_left_waiting(tmp_path: Path) -> None:
    options = _options(tmp_path, tool_call("send", to="dan"), text("done"), defer_tools=["send"])
    async with Client(options) as client:
        await client.query("send it")
        results = [m async for m in client.receive_response() if isinstance(m, ResultMessage)]
        assert results[-1].subtype == "pending_approval"
        [waiting] = client.pending_approvals
        with pytest.raises(ApprovalError, match="not waiting"):
            await client.answer_approvals({"toolu_nope": PermissionResultAllow()})
        await client.answer_approvals({waiting.tool_use_id: PermissionResultAllow()})
        results = [m async for m in client.receive_response() if isinstance(m, ResultMessage)]
    assert results[-1].result == "done" and RUNS == ["dan"]


async def test_what_a_hook_says_about_an_approved_call_reaches_the_run_that_settles_it(
    tmp_path: Path,
) -> None:
    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"systemMessage": f"audited {input['tool_name']}"}

    hooks = {"PostToolUse": [HookMatcher(None, [note])]}
    first = await _deferred(tmp_path, defer_tools=["send"], hooks=hooks)
    call_id = first.pending_approvals[0]["tool_use_id"]
    resumed = _options(
        tmp_path,
        text("sent"),
        defer_tools=["send"],
        hooks=hooks,
        resume=first.session_id,
        approvals={call_id: PermissionResultAllow()},
    )
    messages = [m async for m in query(None, resumed)]
    notes = [
        m.data.get("message")
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]
    assert "audited send" in notes and RUNS == ["bob"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "sent"
