"""Permission rules, shell analysis, the policy and the gate around tool calls."""

from loopwright.permissions.gate import HookNotice, PermissionGate
from loopwright.permissions.policy import (
    PERMISSION_MODES,
    CanUseTool,
    PermissionMode,
    PermissionPolicy,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
    Verdict,
)
from loopwright.permissions.rules import PermissionRule, RuleSet, RuleSyntaxError, parse_rule

__all__ = [
    "PERMISSION_MODES",
    "CanUseTool",
    "HookNotice",
    "PermissionGate",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRule",
    "RuleSet",
    "RuleSyntaxError",
    "ToolPermissionContext",
    "Verdict",
    "parse_rule",
]
