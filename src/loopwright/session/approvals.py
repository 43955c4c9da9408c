"""Approvals at assembly: which calls wait for a person, and the answers a resumed
session was given, checked against what actually waits before anything runs.

The check runs while this process holds the session's writer lock, so of two approvers
racing exactly one gets the session: the other is refused (SessionBusyError while the
first runs, ApprovalError once the calls are no longer pending) and runs no tool.
"""

from __future__ import annotations

import time
from pathlib import Path

from loopwright.errors import ApprovalError
from loopwright.options import Options
from loopwright.permissions.rules import PermissionRule, RuleSet
from loopwright.session.session import Session
from loopwright.types import PermissionResultAllow


def approval_rules(options: Options, cwd: Path) -> tuple[PermissionRule, ...]:
    """``defer_tools`` rules, and one per tool made with ``@tool(needs_approval=True)``."""
    marked: list[str] = []
    if options.tools:
        from loopwright.tools.function_tool import FunctionTool  # start-up: only with tools

        marked = [t.name for t in options.tools if isinstance(t, FunctionTool) and t.needs_approval]
    rules = RuleSet.from_strings(ask=options.defer_tools, anchor=cwd, source="defer_tools")
    tools = RuleSet.from_strings(ask=marked, source="needs_approval")
    return (*rules.ask, *tools.ask)


def take_approvals(session: Session, options: Options) -> None:
    """Hand ``options.approvals`` to the session's next run, or raise ApprovalError
    saying why they cannot apply (nothing of the kind waits)."""
    answers = dict(options.approvals or {})
    if not answers:
        return
    batch = session.pending
    if batch is None:
        raise ApprovalError(
            f"session {session.session_id} has no calls waiting for approval (answered "
            "already, or it moved on), so nothing was run for "
            f"{', '.join(sorted(answers))}; see `loopwright approvals list`"
        )
    unknown = [key for key in answers if batch.call(key) is None]
    if unknown:
        raise ApprovalError(
            f"{', '.join(unknown)} is not waiting for approval in session "
            f"{session.session_id} (waiting: {', '.join(batch.ids)}); nothing was run — "
            "answer the calls that wait"
        )
    now = time.time()
    for key, answer in answers.items():
        call = batch.call(key)
        late = call is not None and call.deadline is not None and call.deadline < now
        if late and isinstance(answer, PermissionResultAllow):
            raise ApprovalError(
                f"the approval deadline of {key} in session {session.session_id} has passed; "
                "it is denied when the session next runs, not run"
            )
    session.approvals = answers
