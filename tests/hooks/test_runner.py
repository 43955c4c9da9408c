"""HookRunner: matchers, concurrency, merging, failures and timeouts."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright.hooks.payloads import hook_payload
from loopwright.hooks.runner import HookMatcher, HookRunner


def returning(output: dict[str, Any], log: list[str] | None = None, name: str = "") -> Any:
    async def hook(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        if log is not None:
            log.append(name)
        return output

    return hook


def decision(value: str, reason: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": value,
            "permissionDecisionReason": reason or value,
            **extra,
        }
    }


PRE = hook_payload(
    "PreToolUse",
    session_id="s",
    cwd="/",
    tool_name="Bash",
    tool_input={"command": "ls"},
    tool_use_id="t",
)


@pytest.mark.parametrize(
    ("matcher", "value", "expected"),
    [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "Edit", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Write", True),
        ("Edit, Write", "Write", True),
        ("Edit|Write", "NotebookEdit", False),
        ("^Notebook", "NotebookEdit", True),
        ("Edit.*", "NotebookEdit", True),
        ("^Edit$", "NotebookEdit", False),
        ("mcp__memory__.*", "mcp__memory__store", True),
        ("mcp__memory", "mcp__memory__store", False),
        ("code-reviewer", "senior-code-reviewer", False),
        ("[unclosed", "x", False),
    ],
)
def test_matcher_semantics(matcher: str | None, value: str, expected: bool) -> None:
    assert HookMatcher(matcher).matches(value) is expected


async def test_only_matching_hooks_run_in_registration_order_of_results() -> None:
    log: list[str] = []
    runner = HookRunner(
        {
            "PreToolUse": [
                HookMatcher("Edit", [returning({}, log, "edit")]),
                HookMatcher("Bash", [returning({}, log, "bash1"), returning({}, log, "bash2")]),
                HookMatcher(None, [returning({}, log, "all")]),
            ]
        }
    )
    outcome = await runner.run("PreToolUse", PRE, match_value="Bash", tool_use_id="t")
    assert sorted(log) == ["all", "bash1", "bash2"] and outcome.hooks_run == 3


async def test_hooks_run_concurrently() -> None:
    async def slow(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        await asyncio.sleep(0.2)
        return {}

    runner = HookRunner({"Stop": [HookMatcher(None, [slow, slow, slow])]})
    started = time.monotonic()
    await runner.run("Stop", {"stop_hook_active": False})
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        (["allow", "ask"], "ask"),
        (["ask", "deny", "allow"], "deny"),
        (["allow", "allow"], "allow"),
        (["deny", "allow"], "deny"),
    ],
)
async def test_permission_decisions_merge_most_restrictive(
    decisions: list[str], expected: str
) -> None:
    runner = HookRunner(
        {
            "PreToolUse": [
                HookMatcher(None, [returning(decision(d, f"because {d}"))]) for d in decisions
            ]
        }
    )
    outcome = await runner.run("PreToolUse", PRE, match_value="Bash")
    assert outcome.permission_decision == expected
    assert outcome.reason == f"because {expected}"


async def test_contexts_messages_and_first_updated_input_merge() -> None:
    runner = HookRunner(
        {
            "PreToolUse": [
                HookMatcher(
                    None,
                    [
                        returning(
                            {
                                "systemMessage": "one",
                                **decision(
                                    "allow",
                                    updatedInput={"command": "ls -a"},
                                    additionalContext="ctx one",
                                ),
                            }
                        )
                    ],
                ),
                HookMatcher(
                    None,
                    [
                        returning(
                            {
                                "systemMessage": "two",
                                **decision(
                                    "allow",
                                    updatedInput={"command": "ls -b"},
                                    additionalContext="ctx two",
                                ),
                            }
                        )
                    ],
                ),
            ]
        }
    )
    outcome = await runner.run("PreToolUse", PRE, match_value="Bash")
    assert outcome.system_messages == ("one", "two")
    assert outcome.additional_context == "ctx one\n\nctx two"
    assert outcome.updated_input == {"command": "ls -a"}


async def test_stop_hook_block_keeps_the_loop_going() -> None:
    runner = HookRunner(
        {
            "Stop": [
                HookMatcher(
                    None,
                    [
                        returning({"decision": "block", "reason": "tests are failing"}),
                        returning({}),
                    ],
                )
            ]
        }
    )
    outcome = await runner.run("Stop", {"stop_hook_active": False})
    assert outcome.blocked and outcome.decision == "block"
    assert outcome.reason == "tests are failing"


async def test_continue_false_wins_and_keeps_the_first_stop_reason() -> None:
    runner = HookRunner(
        {
            "UserPromptSubmit": [
                HookMatcher(
                    None,
                    [
                        returning({"continue": False, "stopReason": "quota"}),
                        returning({"continue": True}),
                    ],
                )
            ]
        }
    )
    outcome = await runner.run("UserPromptSubmit", {"prompt": "hi"})
    assert not outcome.continue_ and outcome.stop_reason == "quota"


async def test_legacy_pre_tool_decision_fields() -> None:
    runner = HookRunner(
        {
            "PreToolUse": [
                HookMatcher(None, [returning({"decision": "block", "reason": "old style"})])
            ]
        }
    )
    outcome = await runner.run("PreToolUse", PRE, match_value="Bash")
    assert outcome.permission_decision == "deny" and outcome.reason == "old style"


async def test_exception_is_reported_not_raised_on_non_gating_events() -> None:
    async def broken(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        raise KeyError("missing")

    runner = HookRunner(
        {
            "PostToolUse": [
                HookMatcher(
                    None, [broken, returning(decision("allow", additionalContext="still here"))]
                )
            ]
        }
    )
    outcome = await runner.run("PostToolUse", {"tool_name": "Bash"}, match_value="Bash")
    assert not outcome.blocked and outcome.additional_context == "still here"
    assert len(outcome.errors) == 1 and "KeyError" in outcome.errors[0]


async def test_timeout_on_user_prompt_submit_blocks_the_prompt() -> None:
    async def slow(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        await asyncio.sleep(2)
        return {}

    runner = HookRunner({"UserPromptSubmit": [HookMatcher(None, [slow], timeout=0.05)]})
    outcome = await runner.run("UserPromptSubmit", {"prompt": "hi"})
    assert outcome.blocked and "did not finish within 0.05s" in (outcome.reason or "")


async def test_timeout_on_notification_is_only_reported() -> None:
    async def slow(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        await asyncio.sleep(2)
        return {}

    runner = HookRunner({"Notification": [HookMatcher(None, [slow], timeout=0.05)]})
    outcome = await runner.run("Notification", {"message": "m"}, match_value="idle_prompt")
    assert not outcome.blocked and outcome.errors


async def test_sync_callbacks_and_none_results_are_accepted() -> None:
    def sync_hook(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> None:
        return None

    runner = HookRunner({"SessionEnd": [HookMatcher(None, [sync_hook])]})
    outcome = await runner.run("SessionEnd", {"reason": "other"})
    assert outcome.errors == () and outcome.hooks_run == 1


async def test_non_dict_result_is_an_error() -> None:
    runner = HookRunner({"PostToolUse": [HookMatcher(None, [returning("yes")])]})  # type: ignore[arg-type]
    outcome = await runner.run("PostToolUse", {}, match_value="Bash")
    assert outcome.errors and "expected a dict" in outcome.errors[0]
    assert_says_what_to_do(outcome.errors[0], "return {} to do nothing")


async def test_hooks_get_a_copy_with_event_name_and_tool_use_id() -> None:
    seen: list[tuple[dict[str, Any], str | None]] = []

    async def record(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        input["tool_input"] = "mutated"
        seen.append((input, tool_use_id))
        return {}

    runner = HookRunner({"PreToolUse": [HookMatcher(None, [record])]})
    await runner.run("PreToolUse", PRE, match_value="Bash", tool_use_id="t")
    assert seen[0][0]["hook_event_name"] == "PreToolUse" and seen[0][1] == "t"
    assert PRE["tool_input"] == {"command": "ls"}


def test_unknown_event_is_rejected_with_the_valid_names() -> None:
    with pytest.raises(ValueError, match="PreToolUse"):
        HookRunner({"PreToolUsage": []})


async def test_no_hooks_is_a_cheap_empty_outcome() -> None:
    outcome = await HookRunner().run("Stop", {})
    assert outcome.hooks_run == 0 and outcome.continue_ and not outcome.blocked


async def test_dict_shaped_matchers_are_accepted() -> None:
    runner = HookRunner(
        {"PreToolUse": [{"matcher": "Bash", "hooks": [returning(decision("ask"))]}]}
    )
    outcome = await runner.run("PreToolUse", PRE, match_value="Bash")
    assert outcome.permission_decision == "ask"
    with pytest.raises(ValueError, match="'matcher', 'hooks'"):
        HookRunner({"Stop": [{"match": "x"}]})
