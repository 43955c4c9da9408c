"""Configuration that can never take effect: rules naming no tool, misspelt settings keys.

A rule like ``Bsh(echo *)`` or a ``"permisions"`` key is accepted by the parsers (they
cannot know which tools a session has), and so silently does nothing — a deny rule that
protects nothing is worse than an error. Once assembly knows the tools, agents and MCP
servers, these checks name each such entry with a suggestion; ``strict_settings`` turns
them into a start-up error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from loopwright.permissions.rules import PermissionRule, RuleSet
from loopwright.tools.builtins import BUILTIN_TOOL_NAMES

# Tools loopwright provides under another name or adds itself, and Claude Code tools a
# shared settings file may name: a rule for them is meaningful, if idle here.
_ALWAYS_KNOWN = frozenset(
    {
        *BUILTIN_TOOL_NAMES,
        "Agent",
        "Task",
        "Skill",
        "ToolSearch",
        "StructuredOutput",
        "ListMcpResources",
        "ReadMcpResource",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "NotebookEdit",
        "NotebookRead",
        "MultiEdit",
        "LS",
        "ExitPlanMode",
        "KillBash",
        "SlashCommand",
    }
)

# Keys Claude Code and loopwright read from settings.json, so a shared file raises no
# warning; anything else is most likely a typo of one of them.
SETTINGS_KEYS = frozenset(
    {
        "$schema",
        "permissions",
        "hooks",
        "env",
        "model",
        "sandbox",
        "disableAllHooks",
        "apiKeyHelper",
        "awsAuthRefresh",
        "awsCredentialExport",
        "cleanupPeriodDays",
        "companyAnnouncements",
        "includeCoAuthoredBy",
        "statusLine",
        "outputStyle",
        "theme",
        "forceLoginMethod",
        "forceLoginOrgUUID",
        "enableAllProjectMcpServers",
        "enabledMcpjsonServers",
        "disabledMcpjsonServers",
        "allowedMcpServers",
        "deniedMcpServers",
        "spinnerTipsEnabled",
        "alwaysThinkingEnabled",
        "otelHeadersHelper",
        "skipWebFetchPreflight",
        "feedbackSurveyState",
        "autoUpdates",
        "preferredNotifChannel",
        "verbose",
        "subagentStatusLine",
        "fallbackModel",
        "mcpServers",
    }
)
PERMISSIONS_KEYS = frozenset(
    {
        "allow",
        "ask",
        "deny",
        "defaultMode",
        "additionalDirectories",
        "disableBypassPermissionsMode",
    }
)


def rule_problems(
    rules: RuleSet, tool_names: Iterable[str], mcp_servers: Iterable[str] = ()
) -> list[str]:
    """One line per rule whose tool part can name no tool this session could have."""
    known = _ALWAYS_KNOWN | set(tool_names)
    servers = set(mcp_servers)
    problems: list[str] = []
    for rule in (*rules.deny, *rules.ask, *rules.allow):
        if rule.is_tool_glob or _names_known(rule, known, servers):
            continue
        problems.append(
            f"{rule.behavior} rule {rule.text!r} ({rule.source}) can never match: no tool "
            f"is named {rule.tool!r}{_suggestion(rule.tool, known)}"
        )
    return list(dict.fromkeys(problems))


def _names_known(rule: PermissionRule, known: set[str] | frozenset[str], servers: set[str]) -> bool:
    if rule.tool in known:
        return True
    if rule.tool.startswith("mcp__"):
        server = rule.tool[len("mcp__") :].split("__", 1)[0]
        # Servers can join later (Client, a reconnect): only a server nobody configured
        # is certainly wrong, and only when some servers were configured to compare with.
        return not servers or server in servers
    return False


def settings_key_problems(files: Iterable[Path]) -> list[str]:
    """One line per unknown key in the settings files that were read."""
    problems: list[str] = []
    for path in files:
        data = _json_object(path)
        if data is None:
            continue
        problems.extend(_unknown(data, SETTINGS_KEYS, f"{path}"))
        permissions = data.get("permissions")
        if isinstance(permissions, Mapping):
            problems.extend(_unknown(permissions, PERMISSIONS_KEYS, f"{path}: permissions"))
    return problems


def _unknown(data: Mapping[Any, Any], keys: frozenset[str], where: str) -> list[str]:
    return [
        f"{where}: unknown settings key {key!r} is ignored{_suggestion(str(key), keys)}"
        for key in data
        if key not in keys
    ]


def _json_object(path: Path) -> Mapping[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # the loader already reported an unreadable file
    return data if isinstance(data, Mapping) else None


def _suggestion(word: str, candidates: Iterable[str]) -> str:
    pool = sorted(candidates)
    by_case = [c for c in pool if c.lower() == word.lower()]
    import difflib  # start-up: only a misspelt setting needs it

    close = by_case or difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
