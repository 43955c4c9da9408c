"""Command hooks run as real subprocesses: JSON on stdin, JSON or exit code 2 back."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright.errors import SettingsError
from loopwright.hooks.commands import CommandHook
from loopwright.hooks.payloads import hook_payload
from loopwright.hooks.runner import HookMatcher, HookRunner
from loopwright.permissions import PermissionGate, PermissionPolicy
from loopwright.settings.load import load_settings
from loopwright.tools.base import SessionState, ToolContext, tool


def script(tmp_path: Path, name: str, body: str) -> str:
    """Write a Python hook script and return the shell command that runs it."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, os, sys\n" + body)
    return f"{sys.executable} {path}"


def pre_input(command: str = "ls", cwd: str = "/") -> dict[str, Any]:
    return hook_payload(
        "PreToolUse",
        session_id="s1",
        cwd=cwd,
        tool_name="Bash",
        tool_input={"command": command},
        tool_use_id="t1",
    )


async def run_one(hook: CommandHook, event: Any = "PreToolUse", payload: Any = None) -> Any:
    runner = HookRunner({event: [HookMatcher(None, [hook])]})
    return await runner.run(event, payload or pre_input(), match_value="Bash", tool_use_id="t1")


async def test_receives_event_json_on_stdin_with_project_env_and_cwd(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    command = script(
        tmp_path,
        "record",
        f"""
data = json.load(sys.stdin)
data["env"] = {{k: os.environ.get(k) for k in ("CLAUDE_PROJECT_DIR", "LOOPWRIGHT_PROJECT_DIR")}}
data["cwd_seen"] = os.getcwd()
open({str(record)!r}, "w").write(json.dumps(data))
""",
    )
    outcome = await run_one(CommandHook(command, project_dir=tmp_path))
    assert outcome.errors == ()
    seen = json.loads(record.read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_input"] == {"command": "ls"}
    assert seen["tool_use_id"] == "t1" and seen["session_id"] == "s1"
    assert seen["env"] == {
        "CLAUDE_PROJECT_DIR": str(tmp_path),
        "LOOPWRIGHT_PROJECT_DIR": str(tmp_path),
    }
    assert seen["cwd_seen"] == str(tmp_path)


async def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "block",
        """
data = json.load(sys.stdin)
if data["tool_input"]["command"].startswith("rm"):
    print("rm is not allowed here", file=sys.stderr)
    sys.exit(2)
""",
    )
    blocked = await run_one(CommandHook(command, project_dir=tmp_path), payload=pre_input("rm x"))
    assert blocked.permission_decision == "deny" and blocked.reason == "rm is not allowed here"
    passed = await run_one(CommandHook(command, project_dir=tmp_path), payload=pre_input("ls"))
    assert passed.permission_decision is None and not passed.blocked


async def test_json_stdout_decides_and_rewrites_input(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "rewrite",
        """
data = json.load(sys.stdin)
print(json.dumps({"systemMessage": "rewrote it", "hookSpecificOutput": {
    "hookEventName": "PreToolUse", "permissionDecision": "allow",
    "updatedInput": {"command": data["tool_input"]["command"] + " --dry-run"}}}))
""",
    )
    outcome = await run_one(CommandHook(command, project_dir=tmp_path))
    assert outcome.permission_decision == "allow"
    assert outcome.updated_input == {"command": "ls --dry-run"}
    assert outcome.system_messages == ("rewrote it",)


async def test_exit_2_on_stop_keeps_going_with_the_reason(tmp_path: Path) -> None:
    command = script(tmp_path, "stop", 'print("run the tests first", file=sys.stderr); sys.exit(2)')
    outcome = await run_one(CommandHook(command), "Stop", {"stop_hook_active": False})
    assert outcome.decision == "block" and outcome.reason == "run the tests first"


async def test_other_exit_codes_are_non_blocking_errors(tmp_path: Path) -> None:
    command = script(tmp_path, "crash", 'print("boom", file=sys.stderr); sys.exit(1)')
    outcome = await run_one(CommandHook(command))
    assert not outcome.blocked and outcome.permission_decision is None
    assert "exit code 1: boom" in outcome.errors[0]


async def test_missing_script_is_reported(tmp_path: Path) -> None:
    outcome = await run_one(CommandHook(str(tmp_path / "nope.sh")))
    assert not outcome.blocked and "exit code 127" in outcome.errors[0]
    assert_says_what_to_do(outcome.errors[0], "check the hook's command in settings")


async def test_timeout_kills_the_hook_and_is_reported(tmp_path: Path) -> None:
    marker = tmp_path / "survived"
    command = script(
        tmp_path,
        "slow",
        f"""
import time
time.sleep(1)
open({str(marker)!r}, "w").write("x")
""",
    )
    started = time.monotonic()
    outcome = await run_one(CommandHook(command, timeout=0.3))
    assert time.monotonic() - started < 0.9
    assert not outcome.blocked and "did not finish within 0.3s" in outcome.errors[0]
    time.sleep(1.3)
    assert not marker.exists()


async def test_plain_stdout_is_context_for_user_prompt_submit(tmp_path: Path) -> None:
    command = script(tmp_path, "ctx", 'print("The deploy target is staging.")')
    outcome = await run_one(CommandHook(command), "UserPromptSubmit", {"prompt": "deploy"})
    assert outcome.additional_context == "The deploy target is staging."


async def test_exec_form_passes_args_without_a_shell(tmp_path: Path) -> None:
    path = tmp_path / "argv.py"
    path.write_text("import json, sys\nprint(json.dumps({'systemMessage': sys.argv[1]}))\n")
    hook = CommandHook(sys.executable, args=(str(path), "$HOME `id`"))
    outcome = await run_one(hook)
    assert outcome.system_messages == ("$HOME `id`",)


async def test_same_command_from_two_files_runs_once(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    command = script(tmp_path, "count", f"open({str(counter)!r}, 'a').write('x')")
    runner = HookRunner(
        {
            "PreToolUse": [
                HookMatcher(None, [CommandHook(command)]),
                HookMatcher("Bash", [CommandHook(command)]),
            ]
        }
    )
    await runner.run("PreToolUse", pre_input(), match_value="Bash")
    assert counter.read_text() == "x"


async def test_settings_hook_blocks_a_tool_through_the_gate(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    command = script(
        tmp_path,
        "guard",
        """
data = json.load(sys.stdin)
if "prod" in data["tool_input"]["command"]:
    print("no production deploys", file=sys.stderr)
    sys.exit(2)
""",
    )
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(deploy *)"]},
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [{"type": "command", "command": command, "timeout": 10}],
                        }
                    ]
                },
            }
        )
    )
    settings = load_settings(project, ("project",), home=tmp_path / "home")
    gate = PermissionGate(
        PermissionPolicy(settings.rules, working_dirs=(project,)), HookRunner(settings.hooks)
    )

    @tool("Bash", "shell", {"type": "object"})
    def bash(args: dict[str, Any]) -> str:
        return "ran"

    ctx = ToolContext(state=SessionState(cwd=project), tool_use_id="t1")
    denied = await gate.before(bash, {"command": "deploy prod"}, ctx)
    allowed = await gate.before(bash, {"command": "deploy staging"}, ctx)
    assert not denied.allowed and denied.message.endswith("no production deploys")
    assert allowed.allowed


async def test_exit_2_blocks_even_when_stdout_json_approves(tmp_path: Path) -> None:
    body = 'print(json.dumps({"decision": "approve"})); print("not yet", file=sys.stderr)\n'
    command = script(tmp_path, "approve_but_2", body + "sys.exit(2)")
    payload = hook_payload("UserPromptSubmit", session_id="s1", cwd="/", prompt="hi")
    outcome = await run_one(CommandHook(command), "UserPromptSubmit", payload)
    assert outcome.blocked and outcome.reason == "not yet"


def test_a_matcher_that_is_not_a_valid_regex_is_a_settings_error(tmp_path: Path) -> None:
    hooks = {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"command": "true"}]}]}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    with pytest.raises(SettingsError, match=r"hooks.PreToolUse\[0\].*regular expression"):
        load_settings(tmp_path, ["project"], home=tmp_path / "home")


def test_an_invalid_regex_matcher_is_refused_by_the_runner() -> None:
    async def hook(data: Any, tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {}

    with pytest.raises(ValueError, match="not a valid regular expression") as raised:
        HookRunner({"PreToolUse": [HookMatcher("mcp__[", [hook])]})
    assert_says_what_to_do(raised.value, "escape regex characters with a backslash")
