"""The one place that builds hook inputs and turns what hooks said into stream messages.

The loop fires SessionStart, UserPromptSubmit, Stop, PreCompact …; the permission gate
fires the tool events. Both build their inputs and their notices here, so a field added
to every hook input, or a new kind of notice, is one change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from loopwright.hooks.runner import HookEvent, HookOutcome
from loopwright.messages import SystemMessage
from loopwright.types import HookNotice, PermissionMode


def hook_payload(
    event: HookEvent,
    *,
    session_id: str,
    cwd: str,
    permission_mode: PermissionMode = "default",
    transcript_path: str | None = None,
    scope_fields: Mapping[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """An event's input as hooks receive it (JSON on stdin for command hooks): the common
    fields first, then who fired it (``agent_id`` / ``agent_type`` inside a subagent), then
    the event's own fields."""
    common: dict[str, Any] = {"permission_mode": permission_mode}
    if transcript_path is not None:
        common["transcript_path"] = transcript_path
    return {
        "hook_event_name": event,
        "session_id": session_id,
        "cwd": cwd,
        **common,
        **(scope_fields or {}),
        **fields,
    }


def outcome_notices(event: str, outcome: HookOutcome) -> list[HookNotice]:
    """What the hooks of one event said for the user, and which of them failed."""
    return [
        *(HookNotice(event, "system_message", text) for text in outcome.system_messages),
        *(HookNotice(event, "hook_error", error) for error in outcome.errors),
    ]


def notice_messages(notices: Iterable[HookNotice]) -> list[SystemMessage]:
    return [
        SystemMessage("hook_error", {"hook_event": n.event, "error": n.message})
        if n.kind == "hook_error"
        else SystemMessage("informational", {"message": n.message, "hook_event": n.event})
        for n in notices
    ]


def hook_messages(
    event: str, outcome: HookOutcome, *, include_hook_events: bool
) -> list[SystemMessage]:
    """The stream's messages for one fired event: its notices and, when the user asked for
    hook events, a ``hook_response`` summary."""
    messages = notice_messages(outcome_notices(event, outcome))
    if include_hook_events and outcome.hooks_run:
        messages.append(
            SystemMessage(
                "hook_response",
                {
                    "hook_event": event,
                    "hooks_run": outcome.hooks_run,
                    "continue": outcome.continue_,
                    "decision": outcome.decision or outcome.permission_decision,
                    "reason": outcome.reason,
                },
            )
        )
    return messages
