"""Real tools and a gate factory for the permission tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.hooks.runner import HookMatcher, HookRunner
from loopwright.permissions import PermissionGate, PermissionPolicy, RuleSet
from loopwright.tools.base import FunctionTool, SessionState, ToolContext, tool
from loopwright.types import (
    PermissionMode,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def make_tool(name: str) -> FunctionTool:
    """A throwaway tool with the given name that echoes its input."""

    @tool(name, f"test stand-in for {name}", _ANY_OBJECT)
    def handler(args: dict[str, Any]) -> str:
        return f"{name} ran with {sorted(args)}"

    return handler


TOOLS = {
    name: make_tool(name)
    for name in (
        "Read",
        "Edit",
        "Write",
        "Glob",
        "Grep",
        "Bash",
        "WebFetch",
        "Agent",
        "TodoWrite",
        "StructuredOutput",
        "mcp__github__get_issue",
        "mcp__github__create_issue",
        "mcp__dangerous__wipe",
        "mcp__files__read",
        "custom_tool",
    )
}


@dataclass
class Recorder:
    """A can_use_tool callback that records every question and answers with ``answer``."""

    answer: PermissionResultAllow | PermissionResultDeny = field(
        default_factory=lambda: PermissionResultDeny("the user said no")
    )
    calls: list[tuple[str, dict[str, Any], ToolPermissionContext]] = field(
        default_factory=list[tuple[str, dict[str, Any], ToolPermissionContext]]
    )

    async def __call__(
        self, name: str, input: dict[str, Any], ctx: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        self.calls.append((name, input, ctx))
        return self.answer


def make_gate(
    cwd: Path,
    *,
    allow: Sequence[str] = (),
    ask: Sequence[str] = (),
    deny: Sequence[str] = (),
    mode: PermissionMode = "default",
    working_dirs: Sequence[Path] = (),
    hooks: dict[str, list[HookMatcher]] | None = None,
    callback: Any = None,
    home: Path | None = None,
) -> PermissionGate:
    rules = RuleSet.from_strings(allow=allow, ask=ask, deny=deny, anchor=cwd)
    policy = PermissionPolicy(
        rules, mode, tuple(working_dirs) or (cwd,), home=home or cwd.parent / "home"
    )
    return PermissionGate(policy, HookRunner(hooks or {}), callback, session_id="s1")


def context(cwd: Path, tool_use_id: str = "toolu_1") -> ToolContext:
    return ToolContext(state=SessionState(cwd=cwd), tool_use_id=tool_use_id, session_id="s1")


async def decide(
    gate: PermissionGate, name: str, input: dict[str, Any], cwd: Path
) -> tuple[str, Any]:
    """Run the gate and classify: 'allow', 'ask' (callback consulted) or 'deny'."""
    recorder = gate.can_use_tool
    asked_before = len(recorder.calls) if isinstance(recorder, Recorder) else 0
    decision = await gate.before(TOOLS[name], input, context(cwd))
    asked = isinstance(recorder, Recorder) and len(recorder.calls) > asked_before
    if asked:
        return "ask", decision
    return ("allow" if decision.allowed else "deny"), decision


@dataclass(frozen=True)
class Project:
    root: Path
    outside: Path

    def fmt(self, text: str) -> str:
        return text.replace("{proj}", str(self.root)).replace("{outside}", str(self.outside))
