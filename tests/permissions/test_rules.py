"""Rule parsing, domain patterns, parameter rules and path anchors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from loopwright.permissions import PermissionPolicy, RuleSet, RuleSyntaxError, parse_rule
from loopwright.permissions.rules import domain_matches


@pytest.mark.parametrize(
    ("text", "tool", "specifier"),
    [
        ("Bash", "Bash", None),
        ("Bash(*)", "Bash", None),
        ("Bash()", "Bash", None),
        ("Bash(npm run *)", "Bash", "npm run *"),
        ("  Read( ./src/** )  ", "Read", "./src/**"),
        ("mcp__github", "mcp__github", None),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("Bash(echo (nested))", "Bash", "echo (nested)"),
    ],
)
def test_parse_rule(text: str, tool: str, specifier: str | None) -> None:
    rule = parse_rule(text, "allow")
    assert (rule.tool, rule.specifier) == (tool, specifier)


@pytest.mark.parametrize("text", ["", "Bash(unclosed", "(npm)", "Two words"])
def test_malformed_rules_say_what_to_write(text: str) -> None:
    with pytest.raises(RuleSyntaxError, match="Tool or Tool\\(specifier\\)"):
        parse_rule(text, "deny")


@pytest.mark.parametrize(
    ("pattern", "host", "expected"),
    [
        ("example.com", "example.com", True),
        ("example.com", "EXAMPLE.com.", True),
        ("example.com", "api.example.com", False),
        ("*.example.com", "api.example.com", True),
        ("*.example.com", "a.b.example.com", True),
        ("*.example.com", "example.com", False),
        ("*.example.com", "badexample.com", False),
        ("example.*", "example.org", True),
        ("example.*", "example.evil.com", False),
        ("*", "anything.test", True),
    ],
)
def test_domain_patterns(pattern: str, host: str, expected: bool) -> None:
    assert domain_matches(pattern, host) is expected


def policy(
    tmp_path: Path, *, allow: Sequence[str] = (), ask: Sequence[str] = (), deny: Sequence[str] = ()
) -> PermissionPolicy:
    return PermissionPolicy(
        RuleSet.from_strings(allow=allow, ask=ask, deny=deny, anchor=tmp_path),
        "default",
        (tmp_path,),
        home=tmp_path / "home",
    )


def test_parameter_rules_match_scalar_inputs(tmp_path: Path) -> None:
    p = policy(tmp_path, deny=["Bash(run_in_background:true)", "Agent(model:opus*)"])
    background = {"command": "ls", "run_in_background": True}
    assert p.evaluate("Bash", background, tmp_path).behavior == "deny"
    assert p.evaluate("Bash", {"command": "ls"}, tmp_path).behavior == "allow"
    agent = {"subagent_type": "x", "prompt": "p", "model": "opus-4"}
    assert p.evaluate("Agent", agent, tmp_path).behavior == "deny"
    assert p.evaluate("Agent", {"subagent_type": "x", "prompt": "p"}, tmp_path).behavior == "allow"


def test_primary_field_parameter_rules_are_not_parameter_rules(tmp_path: Path) -> None:
    # Bash(command:rm *) would be bypassed by "ls && rm x" if it compared the whole input
    # field; it stays a (never matching) command pattern, so nothing is approved by it.
    p = policy(tmp_path, deny=["Bash(command:rm *)"], allow=["Bash(command:*)"])
    assert p.evaluate("Bash", {"command": "ls && rm x"}, tmp_path).behavior == "ask"


def test_tool_name_globs_in_deny_rules(tmp_path: Path) -> None:
    p = policy(tmp_path, deny=["mcp__*"])
    assert p.evaluate("mcp__any__tool", {}, tmp_path).behavior == "deny"
    assert p.evaluate("Read", {"file_path": str(tmp_path / "a")}, tmp_path).behavior == "allow"


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        ("Edit(src/**)", "src/a.py", "allow"),
        ("Edit(src/**)", "vendor/pkg/src/lib.js", "ask"),
        ("Edit(**/src/**)", "vendor/pkg/src/lib.js", "allow"),
        ("Edit(/src/**)", "vendor/pkg/src/lib.js", "ask"),
        ("Edit(*.md)", "docs/deep/readme.md", "allow"),
        ("Edit(docs/*.md)", "docs/deep/readme.md", "ask"),
        ("Edit(docs/[ab].md)", "docs/a.md", "allow"),
    ],
)
def test_allow_path_patterns(tmp_path: Path, rule: str, path: str, expected: str) -> None:
    p = policy(tmp_path, allow=[rule])
    verdict = p.evaluate("Edit", {"file_path": str(tmp_path / path)}, tmp_path)
    assert verdict.behavior == expected


def test_deny_single_directory_pattern_matches_at_any_depth(tmp_path: Path) -> None:
    p = policy(tmp_path, deny=["Edit(src/**)"])
    nested = {"file_path": str(tmp_path / "vendor/pkg/src/lib.js")}
    assert p.evaluate("Edit", nested, tmp_path).behavior == "deny"


def test_home_and_absolute_anchors(tmp_path: Path) -> None:
    p = policy(tmp_path, deny=["Read(~/.aws/**)", "Read(//etc/shadow)"])
    home_file = {"file_path": str(tmp_path / "home/.aws/credentials")}
    assert p.evaluate("Read", home_file, tmp_path).behavior == "deny"
    assert p.evaluate("Read", {"file_path": "/etc/shadow"}, tmp_path).behavior == "deny"
