"""The TodoWrite tool: the model's task list, kept in session state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from loopwright.tools.base import ToolBase, ToolContext, ToolResult

STATUSES = ("pending", "in_progress", "completed")
STATUS_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}

TODO_DESCRIPTION = """\
Create or update the task list for the current work (the whole list each call).

- Use it for multi-step tasks: add the steps, mark one in_progress when you start it and \
completed as soon as it is done. At most one task may be in_progress.
- Each item: content (imperative, e.g. "Run the tests"), status (pending, in_progress, \
completed) and optionally activeForm (e.g. "Running the tests").
- Skip it for trivial single-step requests."""

TODO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1},
                    "status": {"type": "string", "enum": list(STATUSES)},
                    "activeForm": {"type": "string"},
                },
                "required": ["content", "status"],
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}


def validate_todos(raw: object) -> list[dict[str, Any]] | str:
    """The cleaned list, or why it is not a valid task list."""
    if not isinstance(raw, list):
        return "todos must be a list of {content, status, activeForm?} objects"
    todos: list[dict[str, Any]] = []
    for index, item in enumerate(cast(list[object], raw)):
        if not isinstance(item, dict):
            return f"todos[{index}] must be an object"
        entry = cast(dict[str, Any], item)
        content, status = entry.get("content"), entry.get("status")
        if not isinstance(content, str) or not content.strip():
            return f"todos[{index}].content must be a non-empty string"
        if status not in STATUSES:
            return f"todos[{index}].status must be one of {', '.join(STATUSES)}, got {status!r}"
        cleaned: dict[str, Any] = {"content": content, "status": status}
        active_form = entry.get("activeForm")
        if active_form is not None:
            if not isinstance(active_form, str):
                return f"todos[{index}].activeForm must be a string"
            cleaned["activeForm"] = active_form
        todos.append(cleaned)
    in_progress = sum(1 for t in todos if t["status"] == "in_progress")
    if in_progress > 1:
        return f"{in_progress} tasks are in_progress; at most one may be in_progress at a time"
    return todos


def summary(todos: list[dict[str, Any]]) -> str:
    if not todos:
        return "Task list cleared."
    counts = {status: sum(1 for t in todos if t["status"] == status) for status in STATUSES}
    lines = [
        f"Task list updated: {counts['completed']}/{len(todos)} completed, "
        f"{counts['in_progress']} in progress, {counts['pending']} pending."
    ]
    lines += [f"{STATUS_MARKS[t['status']]} {t['content']}" for t in todos]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class TodoWriteTool(ToolBase):
    name: str = "TodoWrite"
    description: str = TODO_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: TODO_SCHEMA)
    read_only: bool = False

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        todos = validate_todos(input.get("todos"))
        if isinstance(todos, str):
            return ToolResult.error(todos)
        ctx.state.todos = todos
        return ToolResult(summary(todos))
