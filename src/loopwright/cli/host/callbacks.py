"""The SDK's callbacks as loopwright's: ``can_use_tool`` and hooks, answered over control.

Each proxy sends one control request and waits for the SDK's answer. The loop cancels a
waiting proxy when the turn is interrupted; the channel then tells the SDK with a
``control_cancel_request``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from loopwright.cli.host.control import ControlChannel, ControlError
from loopwright.hooks.runner import HOOK_EVENTS, HookCallback, HookContext, HookMatcher
from loopwright.types import (
    CanUseTool,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)


def permission_prompt(control: ControlChannel) -> CanUseTool:
    """``--permission-prompt-tool stdio``: undecided calls are the SDK's ``can_use_tool``."""

    async def can_use_tool(
        name: str, input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        request = {
            "subtype": "can_use_tool",
            "tool_name": name,
            "input": input,
            "tool_use_id": context.tool_use_id,
            "permission_suggestions": list(context.suggestions) or None,
            "blocked_path": None,
            "decision_reason": context.reason or None,
            "decision_reason_type": "rule" if context.reason else None,
            "title": f"Use {name}?",
            "display_name": name,
            "description": context.reason or None,
            "agent_id": None,
        }
        try:
            answer = await control.request(request)
        except ControlError as exc:
            return PermissionResultDeny(f"the SDK's can_use_tool failed: {exc}")
        if answer.get("behavior") == "allow":
            updated = answer.get("updatedInput")
            return PermissionResultAllow(
                updated_input=updated if isinstance(updated, dict) else None,
                updated_permissions=answer.get("updatedPermissions"),
            )
        return PermissionResultDeny(
            str(answer.get("message") or "denied by can_use_tool"),
            interrupt=bool(answer.get("interrupt")),
        )

    return can_use_tool


def hook_matchers(
    control: ControlChannel, hooks: Mapping[str, Any] | None
) -> dict[str, list[HookMatcher]]:
    """initialize's ``hooks`` (``{event: [{matcher, hookCallbackIds, timeout}]}``) as
    HookMatchers whose callbacks send ``hook_callback``. Events loopwright does not fire
    are named on stderr, never silently dropped."""
    matchers: dict[str, list[HookMatcher]] = {}
    for event, entries in (hooks or {}).items():
        if event not in HOOK_EVENTS:
            print(
                f"loopwright: warning: the SDK registered {event} hooks; loopwright does not "
                "fire that event, so they will not run",
                file=sys.stderr,
            )
            continue
        for entry in entries or []:
            ids = [str(i) for i in entry.get("hookCallbackIds") or []]
            callbacks = [_hook_proxy(control, callback_id) for callback_id in ids]
            timeout = entry.get("timeout")
            matcher = HookMatcher(
                entry.get("matcher"), callbacks, float(timeout) if timeout else None
            )
            matchers.setdefault(event, []).append(matcher)
    return matchers


def _hook_proxy(control: ControlChannel, callback_id: str) -> HookCallback:
    async def call(input: Any, tool_use_id: str | None, context: HookContext) -> dict[str, Any]:
        return await control.request(
            {
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": input,
                "tool_use_id": tool_use_id,
            }
        )

    call.__qualname__ = f"SDK hook {callback_id}"
    return call
