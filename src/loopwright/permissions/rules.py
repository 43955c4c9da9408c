"""Permission rules: ``Tool`` or ``Tool(specifier)``, parsed once and matched many times.

A rule knows where it came from (``source``) because a ``/path`` pattern anchors at a
directory that depends on the settings file that defined it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from loopwright.tools.web_address import host_matches

RuleBehavior = Literal["allow", "ask", "deny"]

# Tools whose path rules are written as Read(...) or Edit(...).
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
EDIT_TOOLS = frozenset({"Edit", "Write", "NotebookEdit", "MultiEdit"})

_RULE = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


class RuleSyntaxError(ValueError):
    """A permission rule that cannot be parsed."""


@dataclass(frozen=True, slots=True)
class PermissionRule:
    """One parsed rule. ``specifier`` is None for a whole-tool rule."""

    tool: str
    specifier: str | None
    behavior: RuleBehavior
    text: str
    # Where a ``/path`` pattern is anchored (project root, settings dir, or the cwd).
    anchor: Path | None = None
    source: str = "options"

    @property
    def is_tool_glob(self) -> bool:
        return "*" in self.tool

    def matches_tool_name(self, name: str) -> bool:
        """Whether the rule's tool part names ``name`` (ignoring the specifier)."""
        if self.tool == name:
            return True
        if self.is_tool_glob:
            return re.fullmatch(_glob_to_regex(self.tool), name) is not None
        if self.tool.startswith("mcp__") and "__" not in self.tool[5:]:
            # ``mcp__server`` names every tool of that server.
            return name.startswith(self.tool + "__")
        return False


def parse_rule(
    text: str,
    behavior: RuleBehavior,
    *,
    anchor: Path | None = None,
    source: str = "options",
) -> PermissionRule:
    """Parse ``Tool`` / ``Tool(specifier)``; raises RuleSyntaxError saying what is wrong."""
    match = _RULE.match(text)
    if not match or not match.group(1):
        raise RuleSyntaxError(
            f"permission rule {text!r} is not of the form Tool or Tool(specifier); "
            "write e.g. 'Bash(npm run *)' or 'Read(./src/**)'"
        )
    tool, specifier = match.group(1), match.group(2)
    if specifier is not None:
        specifier = specifier.strip()
        if specifier in ("", "*"):
            specifier = None  # Bash(*) and Bash() mean the whole tool
    if tool == "WebFetch" and specifier is not None and not specifier.startswith("domain:"):
        raise RuleSyntaxError(
            f"permission rule {text!r}: WebFetch rules take 'domain:<host>', "
            "e.g. 'WebFetch(domain:example.com)'"
        )
    return PermissionRule(tool, specifier, behavior, text.strip(), anchor, source)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Allow, ask and deny rules from every source, in the order they were given."""

    allow: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    # Rules dropped at parse time (e.g. an unanchored allow glob), with the reason.
    warnings: tuple[str, ...] = field(default=())

    def __add__(self, other: RuleSet) -> RuleSet:
        return RuleSet(
            self.allow + other.allow,
            self.ask + other.ask,
            self.deny + other.deny,
            self.warnings + other.warnings,
        )

    @classmethod
    def from_strings(
        cls,
        *,
        allow: Iterable[str] = (),
        ask: Iterable[str] = (),
        deny: Iterable[str] = (),
        anchor: Path | None = None,
        source: str = "options",
    ) -> RuleSet:
        warnings: list[str] = []
        allowed: list[PermissionRule] = []
        for text in allow:
            rule = parse_rule(text, "allow", anchor=anchor, source=source)
            if rule.is_tool_glob and not _anchored_allow_glob(rule.tool):
                # An allow glob like "*" or "mcp__*" would approve tools nobody named.
                warnings.append(
                    f"allow rule {text!r} ignored: tool-name globs in allow rules need a "
                    "literal 'mcp__<server>__' prefix, e.g. 'mcp__github__*'"
                )
                continue
            allowed.append(rule)
        return cls(
            tuple(allowed),
            tuple(parse_rule(t, "ask", anchor=anchor, source=source) for t in ask),
            tuple(parse_rule(t, "deny", anchor=anchor, source=source) for t in deny),
            tuple(warnings),
        )


def _anchored_allow_glob(tool: str) -> bool:
    match = re.match(r"^mcp__([^*_][^*]*?)__", tool)
    return match is not None and "*" not in match.group(1)


def _glob_to_regex(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.split("*"))


# --------------------------------------------------------------------------- Bash patterns


def command_pattern_regex(specifier: str) -> re.Pattern[str]:
    """Compile a Bash rule specifier: ``*`` spans anything; a trailing `` *`` or ``:*``
    needs a word boundary, so ``ls *`` matches ``ls -la`` and ``ls`` but not ``lsof``."""
    body = specifier
    tail = ""
    if body.endswith((":*", " *")):
        body, tail = body[:-2], r"(?:\s.*)?"
    regex = ".*".join(re.escape(part) for part in body.split("*")) + tail
    return re.compile(regex, re.DOTALL)


# --------------------------------------------------------------------------- domains


def domain_matches(pattern: str, host: str) -> bool:
    """``example.com`` exact; ``*.example.com`` any subdomain (not the apex); ``*`` all.
    Elsewhere ``*`` stays within one label, so ``example.*`` cannot match ``example.evil.com``.
    Both are compared canonically (``2130706434`` is ``127.0.0.2``; see web_address)."""
    return host_matches(pattern, host)
