"""Permission rules, shell analysis, the policy and the gate around tool calls."""

from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.policy import PermissionPolicy, Verdict
from loopwright.permissions.rules import PermissionRule, RuleSet, RuleSyntaxError, parse_rule

__all__ = [
    "PermissionGate",
    "PermissionPolicy",
    "PermissionRule",
    "RuleSet",
    "RuleSyntaxError",
    "Verdict",
    "parse_rule",
]
