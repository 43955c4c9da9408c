"""Permissions, hooks and project settings through the real loop."""

import json
from pathlib import Path
from typing import Any

from error_advice import assert_says_what_to_do
from loopwright import Client, Options, run
from loopwright.hooks.runner import HookMatcher
from loopwright.messages import ResultMessage, SystemMessage
from loopwright.sandbox.bwrap import SandboxSettings
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.types import PermissionResultAllow, PermissionResultDeny
from support import base_options, collect, tool_results
from system_deps import require_program


async def test_default_mode_without_a_callback_denies_and_the_loop_goes_on(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Bash", command="touch made"), text("ok")])
    messages = await collect(
        "go", Options(model=model, cwd=tmp_path, tools=["Bash"], setting_sources=[])
    )
    denied = tool_results(messages)[0]
    assert denied.is_error and not (tmp_path / "made").exists()
    assert_says_what_to_do(denied.text, "add an allow rule such as allowed_tools=['Bash']")
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.permission_denials[0]["tool_name"] == "Bash"
    assert result.permission_denials[0]["tool_input"] == {"command": "touch made"}


async def test_allow_rule_approves_only_matching_commands(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_call("Bash", command="echo allowed"),
            tool_call("Bash", command="echo allowed && touch sneaky"),
            text("ok"),
        ]
    )
    messages = await collect(
        "go",
        Options(
            model=model,
            cwd=tmp_path,
            tools=["Bash"],
            allowed_tools=["Bash(echo *)"],
            setting_sources=[],
        ),
    )
    first, second = tool_results(messages)
    assert first.text.strip() == "allowed"
    assert second.is_error and not (tmp_path / "sneaky").exists()


async def test_can_use_tool_can_rewrite_the_input(tmp_path: Path) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def approve(name: str, input: dict[str, Any], ctx: Any) -> Any:
        seen.append((name, input))
        return PermissionResultAllow(updated_input={"command": "echo rewritten"})

    model = ScriptedModel([tool_call("Bash", command="rm -rf /"), text("ok")])
    messages = await collect(
        "go",
        Options(
            model=model, cwd=tmp_path, tools=["Bash"], can_use_tool=approve, setting_sources=[]
        ),
    )
    assert seen == [("Bash", {"command": "rm -rf /"})]
    assert tool_results(messages)[0].text.strip() == "rewritten"


async def test_deny_with_interrupt_ends_the_run(tmp_path: Path) -> None:
    async def refuse(name: str, input: dict[str, Any], ctx: Any) -> Any:
        return PermissionResultDeny("never", interrupt=True)

    model = ScriptedModel([tool_call("Bash", command="touch x")])
    result = await run(
        "go",
        Options(model=model, cwd=tmp_path, tools=["Bash"], can_use_tool=refuse, setting_sources=[]),
    )
    assert result.subtype == "interrupted"
    model.assert_complete()


async def test_pre_tool_use_hook_denies_and_post_tool_use_adds_context(tmp_path: Path) -> None:
    async def guard(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        if "secret" in json.dumps(input["tool_input"]):
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no secrets",
                }
            }
        return {}

    async def annotate(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "remember to be brief",
            }
        }

    model = ScriptedModel(
        [
            tool_call("Bash", command="cat secret.txt"),
            tool_call("Bash", command="echo fine"),
            text("ok"),
        ]
    )
    hooks = {
        "PreToolUse": [HookMatcher("Bash", [guard])],
        "PostToolUse": [HookMatcher("Bash", [annotate])],
    }
    messages = await collect(
        "go",
        base_options(model, cwd=tmp_path, tools=["Bash"], hooks=hooks),
    )
    blocked, allowed = tool_results(messages)
    assert blocked.is_error and "no secrets" in blocked.text
    assert "fine" in allowed.text and "remember to be brief" in allowed.text


async def test_stop_hook_block_keeps_the_loop_going(tmp_path: Path) -> None:
    calls: list[bool] = []

    async def not_yet(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        calls.append(input["stop_hook_active"])
        if len(calls) == 1:
            return {"decision": "block", "reason": "run the tests first"}
        return {}

    model = ScriptedModel([text("done?"), text("tests pass, done")])
    result = await run(
        "go",
        Options(
            model=model,
            cwd=tmp_path,
            tools=[],
            hooks={"Stop": [HookMatcher(None, [not_yet])]},
            setting_sources=[],
        ),
    )
    assert result.result == "tests pass, done"
    assert calls == [False, True]
    assert model.requests[1].messages[-1].content == "run the tests first"


async def test_prompt_hooks_add_context_or_block(tmp_path: Path) -> None:
    async def context(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        if "forbidden" in input["prompt"]:
            return {"decision": "block", "reason": "not that"}
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": "today is Monday",
            }
        }

    hooks = {"UserPromptSubmit": [HookMatcher(None, [context])]}
    model = ScriptedModel([text("ok")])
    await run(
        "hello", Options(model=model, cwd=tmp_path, tools=[], hooks=hooks, setting_sources=[])
    )
    assert "today is Monday" in json.dumps(model.requests[0].messages[0].to_dict())
    blocked = await run(
        "forbidden thing",
        Options(model=ScriptedModel([]), cwd=tmp_path, tools=[], hooks=hooks, setting_sources=[]),
    )
    assert blocked.is_error and "not that" in blocked.errors[0]


async def test_project_settings_and_memory_apply(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(echo *)"], "deny": ["Bash(echo nope*)"]}})
    )
    (tmp_path / "CLAUDE.md").write_text("Always answer in haiku.\n")
    model = ScriptedModel(
        [
            tool_call("Bash", command="echo yes"),
            tool_call("Bash", command="echo nope"),
            text("ok"),
        ]
    )
    messages = await collect(
        "go", Options(model=model, cwd=tmp_path, tools=["Bash"], setting_sources=["project"])
    )
    allowed, denied = tool_results(messages)
    assert allowed.text.strip() == "yes" and denied.is_error
    assert all("Always answer in haiku." in r.system for r in model.requests)


async def test_broken_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{not json")
    try:
        await run("go", Options(model=ScriptedModel([]), cwd=tmp_path, setting_sources=["project"]))
    except Exception as exc:
        assert "settings.json" in str(exc)
        assert_says_what_to_do(exc, "Fix the JSON or remove the file")
    else:
        raise AssertionError("a broken settings file must not be ignored")


async def test_set_permission_mode_takes_effect_on_the_next_call(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_call("Bash", command="touch one"),
            text("a"),
            tool_call("Bash", command="touch two && echo two"),
            text("b"),
        ]
    )
    async with Client(
        Options(model=model, cwd=tmp_path, tools=["Bash"], setting_sources=[])
    ) as client:
        await client.query("first")
        first = [m async for m in client.receive_response()]
        await client.set_permission_mode("bypassPermissions")
        await client.query("second")
        second = [m async for m in client.receive_response()]
    assert tool_results(first)[0].is_error
    assert tool_results(second)[0].text.strip() == "two"
    init = second[0]
    assert isinstance(init, SystemMessage) and init.data["permission_mode"] == "bypassPermissions"


async def test_sandboxed_bash_cannot_write_outside_the_working_dir(tmp_path: Path) -> None:
    require_program("bwrap", purpose="the sandbox test")
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    model = ScriptedModel(
        [
            tool_call("Bash", command=f"touch {outside}/escaped; touch inside; echo done"),
            text("ok"),
        ]
    )
    messages = await collect(
        "go",
        base_options(model, cwd=work, tools=["Bash"], sandbox=SandboxSettings(enabled=True)),
    )
    assert not (outside / "escaped").exists()
    assert (work / "inside").exists()
    assert "done" in tool_results(messages)[0].text


async def test_options_env_reaches_commands(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Bash", command="echo $GREETING"), text("ok")])
    messages = await collect(
        "go",
        base_options(model, cwd=tmp_path, tools=["Bash"], env={"GREETING": "hello-env"}),
    )
    assert tool_results(messages)[0].text.strip() == "hello-env"


async def test_notification_hook_fires_before_the_user_is_asked(tmp_path: Path) -> None:
    notified: list[dict[str, Any]] = []

    async def notify(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        notified.append(input)
        return {}

    async def approve(name: str, input: dict[str, Any], ctx: Any) -> Any:
        assert notified, "the Notification hook fires before the question"
        return PermissionResultAllow()

    model = ScriptedModel([tool_call("Bash", command="touch made"), text("ok")])
    await run(
        "go",
        Options(
            model=model,
            cwd=tmp_path,
            tools=["Bash"],
            can_use_tool=approve,
            hooks={"Notification": [HookMatcher("permission_prompt", [notify])]},
            setting_sources=[],
        ),
    )
    assert [n["notification_type"] for n in notified] == ["permission_prompt"]
    assert "Bash" in notified[0]["message"]
    assert (tmp_path / "made").exists()
