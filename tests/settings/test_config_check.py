"""Rules that can never match and misspelt settings keys are reported at start: as
informational notices by default, as a start-up error with ``strict_settings``."""

import json
from pathlib import Path
from typing import Any

import pytest

from cli.test_cli import run_cli, write_script
from error_advice import assert_says_what_to_do
from loopwright import Options, query
from loopwright.errors import ConfigurationError
from loopwright.messages import Message, SystemMessage
from loopwright.testing import ScriptedModel, text


async def _notices(cwd: Path, **extra: Any) -> list[str]:
    extra.setdefault("setting_sources", [])
    options = Options(
        model=ScriptedModel([text("ok")]), cwd=str(cwd), persist_session=False, **extra
    )
    messages: list[Message] = [m async for m in query("hi", options)]
    return [
        str(m.data.get("message"))
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]


@pytest.mark.parametrize(
    ("rule", "suggestion"),
    [("Bsh(echo *)", "'Bash'"), ("Raed", "'Read'"), ("bash(echo *)", "'Bash'")],
)
async def test_a_rule_naming_no_tool_is_a_notice_with_a_suggestion(
    tmp_path: Path, rule: str, suggestion: str
) -> None:
    notices = await _notices(tmp_path, allowed_tools=[rule])

    (notice,) = [n for n in notices if "can never match" in n]
    assert rule in notice and f"did you mean {suggestion}" in notice


async def test_rules_for_real_tools_agents_and_claude_code_tools_are_quiet(tmp_path: Path) -> None:
    notices = await _notices(
        tmp_path,
        allowed_tools=["Bash(git diff *)", "Read", "NotebookEdit", "mcp__github__get_issue", "*"],
        disallowed_tools=["WebFetch(domain:example.com)", "Agent(reviewer)"],
    )

    assert not [n for n in notices if "can never match" in n]


async def test_a_misspelt_settings_key_is_a_notice(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        json.dumps({"permisions": {"allow": ["Read"]}, "permissions": {"alow": []}})
    )
    (tmp_path / ".git").mkdir()

    notices = await _notices(tmp_path, setting_sources=["project"])

    assert any("'permisions'" in n and "did you mean 'permissions'" in n for n in notices)
    assert any("permissions" in n and "'alow'" in n and "'allow'" in n for n in notices)


async def test_strict_settings_turns_a_rule_that_never_matches_into_an_error(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        await _notices(tmp_path, disallowed_tools=["Bsh(rm *)"], strict_settings=True)

    assert_says_what_to_do(raised.value, "Bsh(rm *)", "strict_settings")


def test_the_cli_prints_the_notice_and_strict_settings_refuses(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "done"}])
    args = ("-p", "go", "--model", f"scripted:{script}", "--allowed-tools", "Raed")

    warned = run_cli(*args, cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr
    assert "can never match" in warned.stderr and "'Read'" in warned.stderr

    refused = run_cli(*args, "--strict-settings", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "Raed" in refused.stderr and "Traceback" not in refused.stderr
