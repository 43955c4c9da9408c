"""The gate in front of the real built-in tools, driven through the tool executor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from error_advice import assert_says_what_to_do
from loopwright.hooks.runner import HookMatcher
from loopwright.messages import ToolUseBlock
from loopwright.session.permission_gate import build_permission_gate
from loopwright.tools.base import SessionState, ToolContext
from loopwright.tools.builtins import builtin_tool
from loopwright.tools.executor import BatchOutcome, execute


async def run_batch(gate: Any, calls: list[ToolUseBlock], cwd: Path) -> BatchOutcome:
    state = SessionState(cwd=cwd)
    tools = {name: builtin_tool(name) for name in ("Read", "Write", "Bash")}
    outcome = BatchOutcome()

    def make_context(call: ToolUseBlock) -> ToolContext:
        return ToolContext(state=state, tool_use_id=call.id, session_id="s1", working_dirs=(cwd,))

    await execute(calls, tools, make_context, gate, outcome, default_timeout=30)
    return outcome


async def test_denied_calls_become_error_results_and_allowed_ones_run(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    gate = build_permission_gate(
        cwd=tmp_path,
        permission_mode="acceptEdits",
        disallowed_tools=["Read(./.env)", "Bash(rm *)"],
    )
    calls = [
        ToolUseBlock("c1", "Read", {"file_path": str(tmp_path / "notes.txt")}),
        ToolUseBlock("c2", "Read", {"file_path": str(tmp_path / ".env")}),
        ToolUseBlock("c3", "Write", {"file_path": str(tmp_path / "out.txt"), "content": "x"}),
        ToolUseBlock("c4", "Bash", {"command": "ls && rm notes.txt"}),
        ToolUseBlock("c5", "Bash", {"command": "make"}),
    ]
    outcome = await run_batch(gate, calls, tmp_path)
    results = {c.id: outcome.results[c.id] for c in calls}
    assert "hello" in results["c1"].text and not results["c1"].is_error
    assert results["c2"].is_error and "Read(./.env)" in results["c2"].text
    assert_says_what_to_do(results["c2"].text, "do not retry it: do the task another way")
    assert (tmp_path / "out.txt").read_text() == "x" and not results["c3"].is_error
    assert results["c4"].is_error and (tmp_path / "notes.txt").exists()
    assert_says_what_to_do(results["c4"].text, "do not retry it: do the task another way")
    assert results["c5"].is_error and "no can_use_tool callback" in results["c5"].text
    assert_says_what_to_do(results["c5"].text, "add an allow rule such as allowed_tools=['Bash']")
    assert [d["tool_use_id"] for d in gate.permission_denials] == ["c2", "c4", "c5"]


async def test_post_tool_hook_context_reaches_the_model(tmp_path: Path) -> None:
    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "formatted by the hook",
            }
        }

    gate = build_permission_gate(
        cwd=tmp_path,
        permission_mode="acceptEdits",
        hooks={"PostToolUse": [HookMatcher("Write", [note])]},
    )
    call = ToolUseBlock("c1", "Write", {"file_path": str(tmp_path / "a.py"), "content": "x"})
    outcome = await run_batch(gate, [call], tmp_path)
    assert outcome.results["c1"].text.endswith("formatted by the hook")
