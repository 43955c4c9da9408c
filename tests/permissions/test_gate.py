"""PermissionGate: hooks before the policy, the callback after it, denials recorded."""

from __future__ import annotations

import asyncio
from typing import Any

from loopwright.hooks.runner import HookMatcher
from loopwright.tools.base import ToolResult
from loopwright.types import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext
from permissions.permission_helpers import TOOLS, Project, Recorder, context, decide, make_gate


def pre_tool_hook(**specific: Any) -> Any:
    async def hook(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}

    return hook


async def test_denial_is_recorded_with_tool_use_id_and_input(project: Project) -> None:
    gate = make_gate(project.root, deny=["Bash(rm *)"])
    decision = await gate.before(TOOLS["Bash"], {"command": "rm x"}, context(project.root, "t9"))
    assert not decision.allowed
    assert decision.message == (
        "Permission to use Bash was denied: denied by rule Bash(rm *); do not retry it: "
        "do the task another way, or ask the user"
    )
    assert gate.permission_denials == [
        {"tool_name": "Bash", "tool_use_id": "t9", "tool_input": {"command": "rm x"}}
    ]


async def test_hook_updated_input_is_rechecked_against_deny_rules(project: Project) -> None:
    hook = pre_tool_hook(permissionDecision="allow", updatedInput={"command": "rm -rf x"})
    gate = make_gate(
        project.root,
        allow=["Bash(npm *)"],
        deny=["Bash(rm *)"],
        hooks={"PreToolUse": [HookMatcher("Bash", [hook])]},
    )
    outcome, decision = await decide(gate, "Bash", {"command": "npm test"}, project.root)
    assert outcome == "deny"
    assert gate.permission_denials[0]["tool_input"] == {"command": "rm -rf x"}
    assert "Bash(rm *)" in decision.message


async def test_hook_allow_cannot_override_a_deny_rule(project: Project) -> None:
    hook = pre_tool_hook(permissionDecision="allow")
    gate = make_gate(
        project.root, deny=["Read(./.env)"], hooks={"PreToolUse": [HookMatcher(None, [hook])]}
    )
    env = {"file_path": str(project.root / ".env")}
    assert (await decide(gate, "Read", env, project.root))[0] == "deny"


async def test_hook_allow_approves_what_would_otherwise_ask(project: Project) -> None:
    hook = pre_tool_hook(permissionDecision="allow", updatedInput={"command": "make -n"})
    recorder = Recorder()
    gate = make_gate(
        project.root, hooks={"PreToolUse": [HookMatcher("Bash", [hook])]}, callback=recorder
    )
    outcome, decision = await decide(gate, "Bash", {"command": "make"}, project.root)
    assert outcome == "allow" and decision.input == {"command": "make -n"}
    assert not recorder.calls


async def test_hook_deny_beats_allow_rule_and_bypass_mode(project: Project) -> None:
    hook = pre_tool_hook(permissionDecision="deny", permissionDecisionReason="not today")
    gate = make_gate(
        project.root,
        mode="bypassPermissions",
        allow=["Bash"],
        hooks={"PreToolUse": [HookMatcher("Bash", [hook])]},
    )
    outcome, decision = await decide(gate, "Bash", {"command": "ls"}, project.root)
    assert outcome == "deny" and decision.message.endswith("not today")


async def test_hook_ask_goes_to_the_callback(project: Project) -> None:
    hook = pre_tool_hook(permissionDecision="ask")
    recorder = Recorder(PermissionResultAllow())
    gate = make_gate(
        project.root,
        allow=["Bash"],
        callback=recorder,
        hooks={"PreToolUse": [HookMatcher("Bash", [hook])]},
    )
    outcome, decision = await decide(gate, "Bash", {"command": "ls"}, project.root)
    assert outcome == "ask" and decision.allowed


async def test_callback_updated_input_is_rechecked(project: Project) -> None:
    recorder = Recorder(PermissionResultAllow(updated_input={"command": "rm -rf /"}))
    gate = make_gate(project.root, deny=["Bash(rm *)"], callback=recorder)
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert not decision.allowed and "Bash(rm *)" in decision.message


async def test_callback_allow_with_updated_input_runs_that_input(project: Project) -> None:
    recorder = Recorder(PermissionResultAllow(updated_input={"command": "make -n"}))
    gate = make_gate(project.root, callback=recorder)
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert decision.allowed and decision.input == {"command": "make -n"}


async def test_callback_deny_can_interrupt(project: Project) -> None:
    gate = make_gate(project.root, callback=Recorder(PermissionResultDeny("stop", interrupt=True)))
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert not decision.allowed and decision.interrupt
    assert decision.message.endswith("stop")


async def test_sync_callback_receives_context(project: Project) -> None:
    seen: list[ToolPermissionContext] = []

    def callback(name: str, input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        seen.append(ctx)
        return PermissionResultAllow()

    gate = make_gate(project.root, callback=callback, mode="plan")
    decision = await gate.before(TOOLS["Write"], {"file_path": "x"}, context(project.root, "t3"))
    assert decision.allowed
    assert seen[0].tool_use_id == "t3" and seen[0].permission_mode == "plan"
    assert seen[0].cwd == str(project.root) and "plan mode" in seen[0].reason


async def test_callback_that_raises_denies(project: Project) -> None:
    def callback(name: str, input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        raise RuntimeError("ui crashed")

    gate = make_gate(project.root, callback=callback)
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert not decision.allowed and "ui crashed" in decision.message


async def test_permission_request_hook_answers_before_the_callback(project: Project) -> None:
    async def approve(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        assert input["tool_name"] == "Bash" and "tool_use_id" not in input
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"},
            }
        }

    recorder = Recorder()
    gate = make_gate(
        project.root,
        callback=recorder,
        hooks={"PermissionRequest": [HookMatcher("Bash", [approve])]},
    )
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert decision.allowed and not recorder.calls


async def test_permission_request_hook_deny(project: Project) -> None:
    async def refuse(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "policy", "interrupt": True},
            }
        }

    gate = make_gate(project.root, hooks={"PermissionRequest": [HookMatcher(None, [refuse])]})
    decision = await gate.before(TOOLS["Bash"], {"command": "make"}, context(project.root))
    assert not decision.allowed and decision.interrupt and decision.message.endswith("policy")


async def test_failing_pre_tool_hook_blocks_and_is_reported(project: Project) -> None:
    async def broken(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        raise ValueError("bad hook")

    gate = make_gate(
        project.root, allow=["Bash"], hooks={"PreToolUse": [HookMatcher(None, [broken])]}
    )
    outcome, decision = await decide(gate, "Bash", {"command": "ls"}, project.root)
    assert outcome == "deny" and "bad hook" in decision.message
    notices = gate.end_batch().notices
    assert [n.kind for n in notices] == ["hook_error"] and "bad hook" in notices[0].message
    assert gate.end_batch().notices == ()


async def test_pre_tool_timeout_blocks(project: Project) -> None:
    async def slow(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        await asyncio.sleep(5)
        return {}

    gate = make_gate(
        project.root,
        allow=["Bash"],
        hooks={"PreToolUse": [HookMatcher(None, [slow], timeout=0.05)]},
    )
    outcome, decision = await decide(gate, "Bash", {"command": "ls"}, project.root)
    assert outcome == "deny" and "did not finish within 0.05s" in decision.message


async def test_continue_false_denies_and_stops_the_run(project: Project) -> None:
    async def halt(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"continue": False, "stopReason": "budget exhausted", "systemMessage": "bye"}

    gate = make_gate(
        project.root, allow=["Bash"], hooks={"PreToolUse": [HookMatcher(None, [halt])]}
    )
    decision = await gate.before(TOOLS["Bash"], {"command": "ls"}, context(project.root))
    assert not decision.allowed and decision.interrupt
    report = gate.end_batch()
    assert report.stop_reason == "budget exhausted"
    assert [n.message for n in report.notices] == ["bye"]
    assert gate.end_batch().stop_reason is None  # reported once, for the batch it ended


async def test_pre_tool_additional_context_reaches_the_decision(project: Project) -> None:
    hook = pre_tool_hook(additionalContext="env is staging")
    gate = make_gate(project.root, hooks={"PreToolUse": [HookMatcher(None, [hook])]})
    read = {"file_path": str(project.root / "src/app.py")}
    decision = await gate.before(TOOLS["Read"], read, context(project.root))
    assert decision.allowed and decision.additional_context == "env is staging"


async def test_post_tool_use_adds_context_and_replaces_output(project: Project) -> None:
    async def post(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        assert input["tool_response"] == "secret output" and tool_use_id == "toolu_1"
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "updatedToolOutput": "[redacted]",
                "additionalContext": "output was redacted",
            }
        }

    gate = make_gate(project.root, hooks={"PostToolUse": [HookMatcher("Bash", [post])]})
    result = await gate.after(
        TOOLS["Bash"], {"command": "ls"}, ToolResult("secret output"), context(project.root)
    )
    assert result == ToolResult("[redacted]\n\noutput was redacted")


async def test_post_tool_use_block_reason_goes_next_to_the_result(project: Project) -> None:
    async def post(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"decision": "block", "reason": "lint failed: fix it"}

    gate = make_gate(project.root, hooks={"PostToolUse": [HookMatcher(None, [post])]})
    result = await gate.after(TOOLS["Edit"], {}, ToolResult("edited"), context(project.root))
    assert result.content == "edited\n\nlint failed: fix it"


async def test_failure_event_for_error_results(project: Project) -> None:
    events: list[str] = []

    async def record(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        events.append(f"{input['hook_event_name']}:{input.get('error')}")
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUseFailure",
                "additionalContext": "try --verbose",
            }
        }

    gate = make_gate(
        project.root,
        hooks={
            "PostToolUseFailure": [HookMatcher(None, [record])],
            "PostToolUse": [HookMatcher(None, [record])],
        },
    )
    result = await gate.after(
        TOOLS["Bash"], {}, ToolResult.error("Exit code 1"), context(project.root)
    )
    assert events == ["PostToolUseFailure:Exit code 1"]
    assert result == ToolResult("Exit code 1\n\ntry --verbose", is_error=True)


async def test_hook_input_carries_the_common_fields(project: Project) -> None:
    seen: list[dict[str, Any]] = []

    async def record(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append(input)
        return {}

    gate = make_gate(project.root, hooks={"PreToolUse": [HookMatcher(None, [record])]})
    await gate.before(TOOLS["Read"], {"file_path": "a"}, context(project.root, "t5"))
    assert seen == [
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "cwd": str(project.root),
            "permission_mode": "default",
            "tool_name": "Read",
            "tool_input": {"file_path": "a"},
            "tool_use_id": "t5",
        }
    ]


async def test_subagent_gate_adds_agent_fields_to_hook_input(project: Project) -> None:
    seen: list[dict[str, Any]] = []

    async def record(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append(input)
        return {}

    gate = make_gate(project.root, hooks={"PreToolUse": [HookMatcher(None, [record])]})
    gate.hook_fields = {"agent_id": "agent-1", "agent_type": "Explore"}
    await gate.before(TOOLS["Read"], {"file_path": "a"}, context(project.root))
    assert seen[0]["agent_id"] == "agent-1" and seen[0]["agent_type"] == "Explore"
