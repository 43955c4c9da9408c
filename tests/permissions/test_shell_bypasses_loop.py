"""Shell tricks that would dodge a deny rule or a critical-path guard, refused through the
real loop and tools."""

import subprocess
from pathlib import Path

from error_advice import assert_says_what_to_do
from loopwright import Options
from loopwright.messages import ResultMessage
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options, collect, tool_results


async def test_a_cd_into_a_denied_directory_does_not_dodge_the_read_rule(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text("TOP-SECRET\n")
    model = ScriptedModel([tool_call("Bash", command="cd secrets && cat key"), text("ok")])
    options = Options(
        model=model,
        cwd=tmp_path,
        tools=["Bash"],
        setting_sources=[],
        disallowed_tools=["Read(secrets/**)"],
    )
    messages = await collect("go", options)
    result = tool_results(messages)[0]
    assert result.is_error and "TOP-SECRET" not in str(result.content)
    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.permission_denials


async def test_accept_edits_does_not_let_sort_rewrite_git_config(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    config = tmp_path / ".git" / "config"
    before = config.read_text()
    payload = "printf '[core]\\n\\tfsmonitor = touch pwned\\n' | sort -ruo .git/config"
    model = ScriptedModel([tool_call("Bash", command=payload), text("ok")])
    options = base_options(model, cwd=tmp_path, tools=["Bash"], permission_mode="acceptEdits")
    messages = await collect("go", options)
    refused = tool_results(messages)[0]
    assert refused.is_error and "protected path .git/config" in refused.text
    assert_says_what_to_do(refused.text, "pass can_use_tool")
    assert config.read_text() == before


async def test_bypass_mode_does_not_remove_a_parent_directory_unasked(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    # rmdir of a non-empty parent fails harmlessly even if it ran; the denial is the point.
    model = ScriptedModel([tool_call("Bash", command="rmdir .."), text("ok")])
    options = base_options(model, cwd=work, tools=["Bash"])
    messages = await collect("go", options)
    result = tool_results(messages)[0]
    assert result.is_error and "critical path" in str(result.content)
    final = messages[-1]
    assert isinstance(final, ResultMessage) and final.permission_denials


async def test_a_persistent_cd_does_not_move_relative_deny_rules(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "secrets").mkdir()
    secret = tmp_path / "secrets" / "key"
    secret.write_text("TOP-SECRET\n")
    model = ScriptedModel(
        [
            tool_call("Bash", command="cd src"),
            tool_call("Read", file_path=str(secret)),
            text("ok"),
        ]
    )
    options = Options(
        model=model,
        cwd=tmp_path,
        tools=["Bash", "Read"],
        setting_sources=[],
        disallowed_tools=["Read(./secrets/**)"],
    )
    messages = await collect("go", options)
    moved, read = tool_results(messages)
    assert not moved.is_error
    assert read.is_error and "TOP-SECRET" not in str(read.content)
