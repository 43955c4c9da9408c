"""The small shared vocabulary at the bottom of the import graph.

Options, the permission policy, the gate and the compat layers all speak of permission
modes and of the ``can_use_tool`` callback; they are defined here, below all of them, so
that none has to import another to name them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, get_args

PermissionMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
PERMISSION_MODES: tuple[str, ...] = get_args(PermissionMode)


@dataclass(frozen=True, slots=True)
class PermissionResultAllow:
    """``can_use_tool`` approves, optionally with a replacement input."""

    updated_input: dict[str, Any] | None = None
    updated_permissions: list[Any] | None = None
    behavior: Literal["allow"] = "allow"


@dataclass(frozen=True, slots=True)
class PermissionResultDeny:
    """``can_use_tool`` refuses; ``message`` goes to the model; ``interrupt`` ends the run."""

    message: str = ""
    interrupt: bool = False
    behavior: Literal["deny"] = "deny"


@dataclass(frozen=True, slots=True)
class PermissionResultDefer:
    """Nobody can answer now: the run ends with this call pending approval (a
    ``pending_approval`` result), and a later run of the session answers it — from any
    process — with ``Options(resume=..., approvals={tool_use_id: Allow | Deny})``.
    ``reason`` says why the call needs approval (shown to whoever approves)."""

    reason: str = ""
    behavior: Literal["defer"] = "defer"


PermissionResult: TypeAlias = PermissionResultAllow | PermissionResultDeny | PermissionResultDefer
# What an approver answers for a pending call (allow with ``updated_permissions`` rules to
# allow such calls for the rest of the session).
ApprovalDecision: TypeAlias = PermissionResultAllow | PermissionResultDeny


@dataclass(frozen=True, slots=True)
class ToolPermissionContext:
    """What ``can_use_tool`` is told about the call besides its name and input."""

    tool_use_id: str = ""
    session_id: str = ""
    cwd: str = ""
    permission_mode: PermissionMode = "default"
    # Why the call was not settled by rules (e.g. "matches ask rule Bash(git push *)").
    reason: str = ""
    suggestions: list[Any] = field(default_factory=list[Any])
    signal: Any = None  # kept for claude-agent-sdk compatibility; always None


CanUseTool: TypeAlias = Callable[
    [str, dict[str, Any], ToolPermissionContext],
    Awaitable[PermissionResult] | PermissionResult,
]


@dataclass(frozen=True, slots=True)
class HookNotice:
    """Something a hook said for the user (its systemMessage), or a hook that failed."""

    event: str
    kind: Literal["system_message", "hook_error"]
    message: str


# AskUserQuestion's callback: the questions in, ``{question: answer}`` out (None = dismissed).
AskUser: TypeAlias = Callable[
    [list[dict[str, Any]]],
    Awaitable[dict[str, Any] | None] | dict[str, Any] | None,
]
