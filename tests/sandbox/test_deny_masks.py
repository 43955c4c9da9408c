"""Read deny rules that name a concrete path mask it in the sandbox too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loopwright import Options, query
from loopwright.messages import Message, ToolResultBlock, UserMessage
from loopwright.permissions.rules import RuleSet
from loopwright.sandbox import SandboxSettings, masks_for_read_denials
from loopwright.sandbox.deny_masks import concrete_path
from loopwright.testing import ScriptedModel, text, tool_call

from .host import requires_sandbox

CWD, ANCHOR, HOME = Path("/proj"), Path("/proj-root"), Path("/home/me")


@pytest.mark.parametrize(
    ("pattern", "masked"),
    [
        ("./secrets/**", "/proj/secrets"),
        ("secrets/**", "/proj/secrets"),
        ("./keys/*", "/proj/keys"),
        ("./private/", "/proj/private"),
        ("./config/prod.env", "/proj/config/prod.env"),
        ("/deploy/key.pem", "/proj-root/deploy/key.pem"),
        ("//etc/app/token", "/etc/app/token"),
        ("~/.config/tool/**", "/home/me/.config/tool"),
    ],
)
def test_a_concrete_deny_pattern_becomes_a_mask(pattern: str, masked: str) -> None:
    assert concrete_path(pattern, ANCHOR, CWD, HOME) == masked


@pytest.mark.parametrize(
    "pattern",
    [".env", "**/*.pem", "./secrets/*.pem", "src/**/secret.txt", "//**", "~/**", "./a/../b"],
)
def test_a_pattern_that_is_not_one_concrete_place_is_not_masked(pattern: str) -> None:
    assert concrete_path(pattern, ANCHOR, CWD, HOME) is None


def test_only_read_family_deny_rules_with_a_path_become_masks() -> None:
    rules = RuleSet.from_strings(
        deny=["Read(./a/**)", "Grep(./b/**)", "Edit(./c/**)", "Bash(cat *)", "Read"],
        anchor=CWD,
    )
    assert masks_for_read_denials(rules.deny, CWD, HOME) == ("/proj/a", "/proj/b")


# The folder comes from a file, not the command line: the permission check already denies
# a command that names a denied path, and these tests are about the sandbox's own masks.
_READER = "print(open(open('target.txt').read().strip() + '/key.txt').read())\n"


def _results(messages: list[Message]) -> list[str]:
    return [
        block.text
        for message in messages
        if isinstance(message, UserMessage)
        for block in message.blocks
        if isinstance(block, ToolResultBlock)
    ]


async def _run_reader(cwd: Path, folder: str, **options: object) -> str:
    # The path is assembled by the script, so only the sandbox's mask can keep it out.
    (cwd / "reader.py").write_text(_READER)
    (cwd / "target.txt").write_text(folder)
    model = ScriptedModel([tool_call("Bash", command="python3 reader.py"), text("ok")])
    opts = Options(
        model=model,
        cwd=cwd,
        tools=["Bash"],
        permission_mode="bypassPermissions",
        sandbox=SandboxSettings(),
        **options,  # type: ignore[arg-type]
    )
    messages = [m async for m in query("go", opts)]
    return _results(messages)[0]


@requires_sandbox
async def test_a_read_deny_rule_hides_the_folder_from_sandboxed_commands(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("TOP-SECRET")
    out = await _run_reader(
        tmp_path, "secrets", disallowed_tools=["Read(./secrets/**)"], setting_sources=[]
    )
    assert "TOP-SECRET" not in out and "No such file" in out


@requires_sandbox
async def test_settings_deny_read_applies_when_the_sandbox_comes_from_options(
    tmp_path: Path,
) -> None:
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "key.txt").write_text("TOP-SECRET")
    (tmp_path / ".claude").mkdir()
    settings = {"sandbox": {"filesystem": {"denyRead": ["./private"]}}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    out = await _run_reader(tmp_path, "private", setting_sources=["project"])
    assert "TOP-SECRET" not in out and "No such file" in out


@requires_sandbox
async def test_without_a_deny_rule_the_same_command_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("TOP-SECRET")
    out = await _run_reader(tmp_path, "secrets", setting_sources=[])
    assert "TOP-SECRET" in out
