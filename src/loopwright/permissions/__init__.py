"""Permission rules, shell analysis, the policy and the gate around tool calls."""

from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.policy import PermissionPolicy, Verdict
from loopwright.permissions.rules import PermissionRule, RuleSet, RuleSyntaxError, parse_rule

# The permission results moved to loopwright.types (and the top-level package); these
# names stay importable from here, where they used to live.
from loopwright.types import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext

__all__ = [
    "PermissionGate",
    "PermissionPolicy",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRule",
    "RuleSet",
    "RuleSyntaxError",
    "ToolPermissionContext",
    "Verdict",
    "parse_rule",
]
