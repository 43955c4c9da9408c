"""``ShellTool`` of the OpenAI Agents layer: a shell tool whose commands run through the
executor the code supplies (locally, as with that SDK's local shell environment).

The model gives a list of commands (and an optional timeout); the executor gets a
``ShellCommandRequest`` and returns a ``ShellResult`` whose outputs the model sees. With
``needs_approval`` each call waits for approval — from ``on_approval`` when given, else as
an interruption of the run. Skills of the environment are listed in the tool description.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from loopwright.compat.openai_agents._impl.context import ToolContext
from loopwright.compat.openai_agents._impl.tools import FunctionTool

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "commands": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "timeout_ms": {"type": "integer", "minimum": 1000},
    },
    "required": ["commands"],
}
# What the model gets as a command when it sends none (schema-checked input never does).
_DESCRIPTION = "Run shell commands. Give the commands in order; each runs in a shell."


@dataclass
class ShellActionRequest:
    commands: list[str]
    timeout_ms: int | None = None
    max_output_length: int | None = None


@dataclass
class ShellCallData:
    action: ShellActionRequest
    call_id: str = ""
    type: str = "shell_call"


@dataclass
class ShellCommandRequest:
    ctx_wrapper: Any
    data: ShellCallData


@dataclass
class ShellCallOutcome:
    type: Literal["exit", "timeout"]
    exit_code: int | None = None


@dataclass
class ShellCommandOutput:
    command: str = ""
    stdout: str = ""
    stderr: str = ""
    outcome: ShellCallOutcome = field(default_factory=lambda: ShellCallOutcome("exit", 0))


@dataclass
class ShellResult:
    output: list[ShellCommandOutput]
    max_output_length: int | None = None
    provider_data: dict[str, Any] | None = None


class ShellToolLocalSkill(TypedDict, total=False):
    name: str
    description: str
    path: str


class ShellOnApprovalFunctionResult(TypedDict, total=False):
    approve: bool
    reason: str


def ShellTool(
    *,
    executor: Callable[[ShellCommandRequest], Any],
    name: str = "shell",
    needs_approval: bool | Callable[..., Any] = False,
    on_approval: Callable[..., Any] | None = None,
    environment: dict[str, Any] | None = None,
) -> FunctionTool:
    """A function tool named ``shell`` that runs commands through ``executor``."""

    async def invoke(context: Any, arguments: str) -> str:

        parsed = json.loads(arguments) if arguments else {}
        action = ShellActionRequest(list(parsed.get("commands") or []), parsed.get("timeout_ms"))
        call_id = context.tool_call_id if isinstance(context, ToolContext) else ""
        request = ShellCommandRequest(context, ShellCallData(action, call_id))
        produced = executor(request)
        result = await produced if inspect.isawaitable(produced) else produced
        return _render(result)

    tool = FunctionTool(
        name=name,
        description=_describe(environment),
        params_json_schema=_SCHEMA,
        on_invoke_tool=invoke,
        needs_approval=needs_approval,
    )
    tool.extras["on_approval"] = on_approval
    return tool


def _describe(environment: dict[str, Any] | None) -> str:
    skills = (environment or {}).get("skills") or []
    if not skills:
        return _DESCRIPTION
    listed = "\n".join(
        f"- {s['name']}: {s.get('description', '')} ({s.get('path', '')})" for s in skills
    )
    return (
        f"{_DESCRIPTION}\nSkills available on this machine (read their SKILL.md first):\n{listed}"
    )


def _render(result: Any) -> str:
    if isinstance(result, str):
        return result
    parts: list[str] = []
    for entry in getattr(result, "output", []) or []:
        outcome = entry.outcome
        status = "timed out" if outcome.type == "timeout" else f"exit code {outcome.exit_code}"
        parts.append(f"$ {entry.command}\n{entry.stdout}{entry.stderr}({status})")
    return "\n".join(parts) or "(no commands were run)"
