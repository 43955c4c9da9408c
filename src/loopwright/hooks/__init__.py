"""Hooks: callbacks and shell commands run at the loop's and the tools' events.

``HookMatcher`` and the typed hook inputs are importable from here (and from
``loopwright``); they live in :mod:`loopwright.hooks.runner`.
"""

from loopwright.hooks.runner import (
    BaseHookInput,
    HookCallback,
    HookContext,
    HookEvent,
    HookInput,
    HookMatcher,
    NotificationHookInput,
    PermissionRequestHookInput,
    PostToolUseFailureHookInput,
    PostToolUseHookInput,
    PreCompactHookInput,
    PreToolUseHookInput,
    SessionEndHookInput,
    SessionStartHookInput,
    StopHookInput,
    SubagentStartHookInput,
    SubagentStopHookInput,
    UserPromptSubmitHookInput,
)

__all__ = [
    "BaseHookInput",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookInput",
    "HookMatcher",
    "NotificationHookInput",
    "PermissionRequestHookInput",
    "PostToolUseFailureHookInput",
    "PostToolUseHookInput",
    "PreCompactHookInput",
    "PreToolUseHookInput",
    "SessionEndHookInput",
    "SessionStartHookInput",
    "StopHookInput",
    "SubagentStartHookInput",
    "SubagentStopHookInput",
    "UserPromptSubmitHookInput",
]
