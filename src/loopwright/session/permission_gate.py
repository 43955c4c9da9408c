"""Build a session's PermissionGate from options and settings in one call.

Rules from options (``allowed_tools`` / ``disallowed_tools``) anchor ``/path`` patterns at
the cwd, like CLI flags; rules from settings files keep the anchors of their source.
Deny rules from every source are checked before any allow rule, so no source can lift
another source's deny.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from loopwright.errors import ConfigurationError
from loopwright.hooks.runner import HookMatcher, HookRunner
from loopwright.permissions.gate import PermissionGate
from loopwright.permissions.policy import PermissionPolicy
from loopwright.permissions.rules import RuleSet
from loopwright.settings.load import Settings
from loopwright.types import CanUseTool, PermissionMode


def build_permission_gate(
    *,
    cwd: str | Path,
    permission_mode: PermissionMode | None = None,
    allowed_tools: Sequence[str] = (),
    disallowed_tools: Sequence[str] = (),
    can_use_tool: CanUseTool | None = None,
    hooks: Mapping[str, Sequence[HookMatcher]] | None = None,
    add_dirs: Sequence[str | Path] = (),
    settings: Settings | None = None,
    session_id: str = "",
    transcript_path: str | None = None,
    home: Path | None = None,
    hook_fields: Mapping[str, Any] | None = None,
) -> PermissionGate:
    """The gate for one session. Raises RuleSyntaxError (a ValueError) for a bad rule."""
    cwd_path = Path(cwd).resolve()
    rules = RuleSet.from_strings(
        allow=allowed_tools, deny=disallowed_tools, anchor=cwd_path, source="options"
    )
    matchers: dict[str, list[HookMatcher]] = {k: list(v) for k, v in (hooks or {}).items()}
    extra_dirs: tuple[Path, ...] = ()
    mode: PermissionMode = permission_mode or "default"
    if settings is not None:
        rules = rules + settings.rules
        extra_dirs = settings.additional_directories
        mode = permission_mode or settings.default_mode or "default"
        if settings.bypass_disabled and mode == "bypassPermissions":
            raise ConfigurationError(
                "bypassPermissions mode is disabled by permissions.disableBypassPermissionsMode "
                "in a settings file; choose another permission_mode or remove that setting"
            )
        for event, entries in settings.hooks.items():
            matchers.setdefault(event, []).extend(entries)
    working_dirs = session_working_dirs(cwd_path, [*add_dirs, *extra_dirs])
    policy = PermissionPolicy(rules, mode, working_dirs, home=home or Path.home())
    gate = PermissionGate(
        policy,
        HookRunner(matchers),
        can_use_tool,
        session_id=session_id,
        transcript_path=transcript_path,
        hook_fields=hook_fields,
    )
    gate.rule_warnings = list(rules.warnings)
    return gate


def session_working_dirs(cwd: Path, add_dirs: Sequence[str | Path]) -> tuple[Path, ...]:
    """cwd plus additional directories (relative ones against cwd), without duplicates."""
    dirs = [cwd, *((cwd / Path(d).expanduser()).resolve() for d in add_dirs)]
    return tuple(dict.fromkeys(dirs))
