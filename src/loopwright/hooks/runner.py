"""Hooks: events, typed inputs, matchers, running Python and command hooks, merging.

Every matching hook of an event runs concurrently, each under its own timeout. A hook
that crashes or times out never crashes the loop: the failure is listed in
``HookOutcome.errors`` for the loop to surface. Where a Python callback guards a gate
(PreToolUse, UserPromptSubmit) a failure blocks, because a policy hook must not fail open.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, get_args

# Command hooks (hooks.commands) are imported where a hook runs: start-up runs none.

HookEvent: TypeAlias = Literal[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PermissionRequest",
]
HOOK_EVENTS: tuple[str, ...] = get_args(HookEvent)


# --------------------------------------------------------------------------- inputs


class BaseHookInput(TypedDict):
    hook_event_name: str
    session_id: str
    cwd: str
    transcript_path: NotRequired[str]
    permission_mode: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]


class PreToolUseHookInput(BaseHookInput):
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str


class PostToolUseHookInput(BaseHookInput):
    tool_name: str
    tool_input: dict[str, Any]
    tool_response: Any
    tool_use_id: str


class PostToolUseFailureHookInput(BaseHookInput):
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    error: str
    is_interrupt: NotRequired[bool]


class PermissionRequestHookInput(BaseHookInput):
    tool_name: str
    tool_input: dict[str, Any]
    permission_suggestions: NotRequired[list[Any]]


class UserPromptSubmitHookInput(BaseHookInput):
    prompt: str


class StopHookInput(BaseHookInput):
    stop_hook_active: bool
    last_assistant_message: NotRequired[str]


class SubagentStartHookInput(BaseHookInput):
    """``agent_id`` and ``agent_type`` (inherited) are always set for this event."""


class SubagentStopHookInput(BaseHookInput):
    stop_hook_active: bool
    last_assistant_message: NotRequired[str]


class PreCompactHookInput(BaseHookInput):
    trigger: Literal["manual", "auto"]
    custom_instructions: str | None


class SessionStartHookInput(BaseHookInput):
    source: Literal["startup", "resume", "clear", "compact", "fork"]
    model: NotRequired[str]


class SessionEndHookInput(BaseHookInput):
    reason: str


class NotificationHookInput(BaseHookInput):
    message: str
    notification_type: str
    title: NotRequired[str]


HookInput: TypeAlias = (
    PreToolUseHookInput
    | PostToolUseHookInput
    | PostToolUseFailureHookInput
    | PermissionRequestHookInput
    | UserPromptSubmitHookInput
    | StopHookInput
    | SubagentStartHookInput
    | SubagentStopHookInput
    | PreCompactHookInput
    | SessionStartHookInput
    | SessionEndHookInput
    | NotificationHookInput
)


# --------------------------------------------------------------------------- matchers


@dataclass(frozen=True, slots=True)
class HookContext:
    """Third callback argument. Reserved, as in claude-agent-sdk; ``signal`` is None."""

    signal: Any = None


# Returning None means "nothing to say", like returning {}.
HookCallback: TypeAlias = Callable[
    [Any, str | None, HookContext],
    Awaitable[dict[str, Any]] | Awaitable[dict[str, Any] | None] | dict[str, Any] | None,
]


@dataclass(frozen=True, slots=True)
class HookMatcher:
    """Hooks for one event, filtered by ``matcher`` (exact names joined by ``|``/``,``,
    else an unanchored regex; None, "" or "*" match everything)."""

    matcher: str | None = None
    hooks: list[HookCallback] = field(default_factory=list[HookCallback])
    timeout: float | None = None

    def matches(self, value: str | None) -> bool:
        pattern = (self.matcher or "").strip()
        if pattern in ("", "*") or value is None:
            return True
        if re.fullmatch(r"[\w\s,|-]+", pattern):
            return value in {p.strip() for p in re.split(r"[|,]", pattern) if p.strip()}
        try:
            return re.search(pattern, value) is not None
        except re.error:
            return False


_DEFAULT_TIMEOUT = {"UserPromptSubmit": 30.0, "SessionEnd": 1.5}
_FAIL_CLOSED = frozenset({"PreToolUse", "UserPromptSubmit"})
# "defer": nobody answers now; the call waits for approval (the run ends pending_approval).
_PRECEDENCE = {"deny": 4, "defer": 3, "ask": 2, "allow": 1}
Decision = Literal["allow", "deny", "ask", "defer"]


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """All hooks of one event, merged. Deny beats ask beats allow; lists concatenate."""

    continue_: bool = True
    stop_reason: str | None = None
    system_messages: tuple[str, ...] = ()
    decision: Literal["block"] | None = None
    reason: str | None = None
    permission_decision: Decision | None = None
    updated_input: dict[str, Any] | None = None
    additional_context: str | None = None
    updated_output: Any = None
    interrupt: bool = False
    errors: tuple[str, ...] = ()
    hooks_run: int = 0

    @property
    def blocked(self) -> bool:
        return self.decision == "block" or self.permission_decision == "deny"


@dataclass(slots=True)
class _Merge:
    continue_: bool = True
    stop_reason: str | None = None
    system_messages: list[str] = field(default_factory=list[str])
    block_reasons: list[str] = field(default_factory=list[str])
    blocked: bool = False
    decision: Decision | None = None
    decision_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    contexts: list[str] = field(default_factory=list[str])
    updated_output: Any = None
    interrupt: bool = False
    errors: list[str] = field(default_factory=list[str])

    def add_decision(self, decision: Decision, reason: str | None) -> None:
        if self.decision is None or _PRECEDENCE[decision] > _PRECEDENCE[self.decision]:
            self.decision, self.decision_reason = decision, reason

    def outcome(self, count: int) -> HookOutcome:
        reason = self.decision_reason if self.decision else None
        if self.blocked:
            reason = "\n".join(self.block_reasons) or reason
        return HookOutcome(
            self.continue_,
            self.stop_reason,
            tuple(self.system_messages),
            "block" if self.blocked else None,
            reason,
            self.decision,
            self.updated_input,
            "\n\n".join(self.contexts) or None,
            self.updated_output,
            self.interrupt,
            tuple(self.errors),
            count,
        )


class HookRunner:
    """Runs the hooks registered per event and merges what they return."""

    def __init__(
        self, matchers: Mapping[str, Sequence[HookMatcher | Mapping[str, Any]]] | None = None
    ) -> None:
        self.matchers: dict[str, list[HookMatcher]] = {}
        for event, entries in (matchers or {}).items():
            if event not in HOOK_EVENTS:
                raise ValueError(
                    f"unknown hook event {event!r}; use one of: {', '.join(HOOK_EVENTS)}"
                )
            self.matchers[event] = [_as_matcher(entry) for entry in entries]
            for matcher in self.matchers[event]:
                check_matcher(matcher.matcher)

    def has(self, event: HookEvent) -> bool:
        return any(m.hooks for m in self.matchers.get(event, ()))

    async def run(
        self,
        event: HookEvent,
        input: Mapping[str, Any],
        *,
        match_value: str | None = None,
        tool_use_id: str | None = None,
    ) -> HookOutcome:
        selected = self._select(event, match_value)
        if not selected:
            return HookOutcome()
        payload = {**input, "hook_event_name": event}
        results = await asyncio.gather(
            *(self._call(event, hook, timeout, payload, tool_use_id) for hook, timeout in selected)
        )
        merge = _Merge()
        for (hook, _), result in zip(selected, results, strict=True):
            if isinstance(result, _Failed):
                _record_failure(event, hook, result, merge)
            else:
                _apply(event, result, merge)
        return merge.outcome(len(selected))

    def _select(self, event: HookEvent, value: str | None) -> list[tuple[HookCallback, float]]:
        from loopwright.hooks.commands import CommandHook  # start-up: see the top

        chosen: list[tuple[HookCallback, float]] = []
        seen_commands: set[str] = set()
        for matcher in self.matchers.get(event, ()):
            if not matcher.matches(value):
                continue
            for hook in matcher.hooks:
                if isinstance(hook, CommandHook):
                    if hook.command in seen_commands:
                        continue  # the same handler in two settings files runs once
                    seen_commands.add(hook.command)
                timeout = (
                    (hook.timeout if isinstance(hook, CommandHook) else None)
                    or matcher.timeout
                    or _DEFAULT_TIMEOUT.get(event, 600.0)
                )
                chosen.append((hook, timeout))
        return chosen

    async def _call(
        self,
        event: str,
        hook: HookCallback,
        timeout: float,
        payload: dict[str, Any],
        tool_use_id: str | None,
    ) -> dict[str, Any] | _Failed:
        from loopwright.hooks.commands import HookFailure  # start-up: see the top

        try:
            async with asyncio.timeout(timeout):
                produced: Any = hook(dict(payload), tool_use_id, HookContext())
                if inspect.isawaitable(produced):
                    produced = await produced
        except TimeoutError:
            return _Failed(
                f"{_label(hook)} on {event} did not finish within {timeout:g}s", timed_out=True
            )
        except HookFailure as exc:
            return _Failed(str(exc))
        except Exception as exc:
            return _Failed(f"{_label(hook)} on {event} raised {type(exc).__name__}: {exc}")
        if produced is None:
            return {}
        if not isinstance(produced, dict):
            return _Failed(
                f"{_label(hook)} on {event} returned {type(produced).__name__}, "
                "expected a dict (return {} to do nothing)"
            )
        return produced


def check_matcher(pattern: str | None) -> None:
    """Raise ValueError for a regex matcher that does not compile: it would never match,
    and a policy hook that silently never runs fails open."""
    text = (pattern or "").strip()
    if text in ("", "*") or re.fullmatch(r"[\w\s,|-]+", text):
        return
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(
            f"hook matcher {pattern!r} is not a valid regular expression: {exc}; escape "
            "regex characters with a backslash, or list tool names joined with |"
        ) from exc


def _as_matcher(entry: HookMatcher | Mapping[str, Any]) -> HookMatcher:
    """Accept the TypeScript-SDK shape ``{"matcher": ..., "hooks": [...], "timeout": ...}``."""
    if isinstance(entry, HookMatcher):
        return entry
    unknown = set(entry) - {"matcher", "hooks", "timeout"}
    if unknown or not isinstance(entry.get("hooks", []), list):
        raise ValueError(
            f"a hook matcher takes 'matcher', 'hooks' (a list) and 'timeout'; got {dict(entry)!r}"
        )
    return HookMatcher(entry.get("matcher"), list(entry.get("hooks", [])), entry.get("timeout"))


@dataclass(frozen=True, slots=True)
class _Failed:
    message: str
    timed_out: bool = False


def _label(hook: HookCallback) -> str:
    from loopwright.hooks.commands import CommandHook  # start-up: see the top

    if isinstance(hook, CommandHook):
        return hook.label
    return f"hook {getattr(hook, '__qualname__', None) or repr(hook)}"


def _record_failure(event: str, hook: HookCallback, failure: _Failed, merge: _Merge) -> None:
    from loopwright.hooks.commands import CommandHook  # start-up: see the top

    merge.errors.append(failure.message)
    if event in _FAIL_CLOSED and not isinstance(hook, CommandHook):
        # A Python policy hook that cannot answer must not wave the action through.
        merge.blocked = True
        merge.block_reasons.append(failure.message)
        if event == "PreToolUse":
            merge.add_decision("deny", failure.message)


def _apply(event: str, output: dict[str, Any], merge: _Merge) -> None:
    if output.get("continue", output.get("continue_", True)) is False:
        merge.continue_ = False
        merge.stop_reason = merge.stop_reason or output.get("stopReason")
    if isinstance(message := output.get("systemMessage"), str) and message:
        merge.system_messages.append(message)
    decision = output.get("decision")
    reason = output.get("reason")
    if decision in ("block", "deny"):
        merge.blocked = True
        merge.block_reasons.append(str(reason or f"blocked by a {event} hook"))
        if event == "PreToolUse":
            merge.add_decision("deny", reason)
    elif decision == "approve" and event == "PreToolUse":
        merge.add_decision("allow", reason)
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict):
        _apply_specific(event, specific, merge)


def _apply_specific(event: str, specific: dict[str, Any], merge: _Merge) -> None:
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        merge.contexts.append(context)
    if event == "PreToolUse":
        decision = specific.get("permissionDecision")
        reason = specific.get("permissionDecisionReason")
        if decision in _PRECEDENCE:
            merge.add_decision(decision, reason)
            if decision == "deny":
                merge.blocked = True
                merge.block_reasons.append(str(reason or "denied by a PreToolUse hook"))
        if (
            isinstance(updated := specific.get("updatedInput"), dict)
            and merge.updated_input is None
        ):
            merge.updated_input = updated
    elif event == "PermissionRequest":
        _apply_permission_request(specific.get("decision"), merge)
    elif event in ("PostToolUse", "PostToolUseFailure"):
        for key in ("updatedToolOutput", "updatedMCPToolOutput"):
            if key in specific and merge.updated_output is None:
                merge.updated_output = specific[key]


def _apply_permission_request(decision: Any, merge: _Merge) -> None:
    if not isinstance(decision, dict):
        return
    behavior = decision.get("behavior")
    if behavior == "allow":
        merge.add_decision("allow", None)
        if isinstance(updated := decision.get("updatedInput"), dict):
            merge.updated_input = merge.updated_input or updated
    elif behavior == "deny":
        merge.add_decision("deny", decision.get("message") or "denied by a PermissionRequest hook")
        merge.interrupt = merge.interrupt or bool(decision.get("interrupt"))
