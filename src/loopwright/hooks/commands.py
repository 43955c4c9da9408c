"""Shell-command hooks from settings files: JSON on stdin, JSON or an exit code back.

Exit 0 with a JSON object on stdout: the object is the hook's output. Exit 2: block,
with stderr as the reason. Anything else is a non-blocking failure the loop reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright import processes

# Events where plain-text stdout is context for the model.
_TEXT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart", "SubagentStart"})
_OUTPUT_CAP = 10_000


class HookFailure(Exception):
    """A hook that could not give an answer (crash, bad exit code, timeout)."""


@dataclass(frozen=True, slots=True)
class CommandHook:
    """``{"type": "command", "command": ..., "timeout": ...}`` from a settings file."""

    command: str
    timeout: float | None = None
    args: tuple[str, ...] | None = None
    project_dir: Path | None = None
    source: str = "settings"
    env: dict[str, str] = field(default_factory=dict[str, str])

    @property
    def label(self) -> str:
        return f"command hook {self.command!r} ({self.source})"

    async def __call__(
        self, input: dict[str, Any], tool_use_id: str | None, context: Any
    ) -> dict[str, Any]:
        stdout, stderr, code = await self._run(json.dumps(input, default=str).encode())
        event = str(input.get("hook_event_name", ""))
        return interpret_exit(event, code, stdout, stderr, self.label)

    async def _run(self, payload: bytes) -> tuple[str, str, int]:
        project = str(self.project_dir or Path.cwd())
        env = {
            **os.environ,
            **self.env,
            "CLAUDE_PROJECT_DIR": project,
            "LOOPWRIGHT_PROJECT_DIR": project,
        }
        if self.args is not None:
            process = await asyncio.create_subprocess_exec(
                self.command,
                *self.args,
                cwd=project,
                env=env,
                start_new_session=True,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        else:
            process = await asyncio.create_subprocess_shell(
                self.command,
                cwd=project,
                env=env,
                start_new_session=True,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                executable="/bin/bash",
            )
        processes.track(process.pid)  # killed with this process if it is still running
        try:
            out, err = await process.communicate(payload)
        except BaseException:
            # Timeout or cancellation: the hook and anything it started must not linger.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await process.wait()
            raise
        finally:
            processes.forget(process.pid)
        return out.decode(errors="replace"), err.decode(errors="replace"), process.returncode or 0


def interpret_exit(event: str, code: int, stdout: str, stderr: str, label: str) -> dict[str, Any]:
    """Turn a command hook's exit code and output into the callback output shape."""
    parsed = _parse_json(stdout)
    if code == 2:
        reason = stderr.strip()[:_OUTPUT_CAP] or f"{label} exited with code 2"
        blocked = dict(parsed or {})
        if event == "PreToolUse":
            specific = dict(blocked.get("hookSpecificOutput") or {})
            specific.update(
                permissionDecision="deny",
                permissionDecisionReason=specific.get("permissionDecisionReason") or reason,
            )
            blocked["hookSpecificOutput"] = specific
        elif event == "PermissionRequest":
            return parsed or {}  # exit 2 is not a decision for this event
        else:
            # Exit 2 blocks whatever the JSON says; its reason is used only when the JSON
            # itself blocked.
            if blocked.get("decision") not in ("block", "deny") or not blocked.get("reason"):
                blocked["reason"] = reason
            blocked["decision"] = "block"
        return blocked
    if parsed is not None:
        return parsed  # a valid JSON object decides, whatever the exit code
    if code != 0:
        first_line = (stderr.strip().splitlines() or [""])[0]
        advice = (
            "; the command was not found: check the hook's command in settings (its path "
            "and that it is executable)"
            if code == 127
            else ""
        )
        raise HookFailure(f"{label} failed with exit code {code}: {first_line}{advice}")
    text = stdout.strip()
    if text and event in _TEXT_IS_CONTEXT:
        return {
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": text[:_OUTPUT_CAP]}
        }
    return {}


def _parse_json(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
