"""What a durable step records: model responses, tool results and the tools' shared state.

Steps return plain JSON-shaped dicts rather than our dataclasses, so that what sits in the
DBOS system database survives a change of this package's classes and can be read by any
tool that inspects workflow steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopwright.messages import ImageBlock, TextBlock, Usage, block_from_dict, block_to_dict
from loopwright.models.base import ModelResponse
from loopwright.tools.base import FileRecord, SessionState, ToolResult


def response_to_record(response: ModelResponse) -> dict[str, Any]:
    return {
        "content": [block_to_dict(block) for block in response.content],
        "usage": response.usage.to_dict(),
        "stop_reason": response.stop_reason,
        "model": response.model,
        "message_id": response.message_id,
        "provider_data": response.provider_data,
    }


def response_from_record(record: dict[str, Any]) -> ModelResponse:
    return ModelResponse(
        content=[block_from_dict(block) for block in record["content"]],
        usage=Usage.from_dict(record["usage"]),
        stop_reason=record["stop_reason"],
        model=record["model"],
        message_id=record.get("message_id"),
        provider_data=record.get("provider_data"),
    )


def tool_result_to_record(result: ToolResult, state: SessionState) -> dict[str, Any]:
    content: str | list[dict[str, Any]] = (
        result.content
        if isinstance(result.content, str)
        else [block_to_dict(block) for block in result.content]
    )
    return {"content": content, "is_error": result.is_error, "state": state_to_record(state)}


def tool_result_from_record(record: dict[str, Any]) -> ToolResult:
    raw = record["content"]
    if isinstance(raw, str):
        return ToolResult(raw, is_error=bool(record["is_error"]))
    blocks: list[TextBlock | ImageBlock] = []
    for item in raw:
        block = block_from_dict(item)
        if isinstance(block, TextBlock | ImageBlock):
            blocks.append(block)
    return ToolResult(blocks, is_error=bool(record["is_error"]))


def state_to_record(state: SessionState) -> dict[str, Any]:
    """The part of the tools' shared state a later tool call depends on: the shell's
    working directory, which files were read (Edit needs a prior Read), the todo list."""
    return {
        "cwd": str(state.cwd),
        "todos": [dict(todo) for todo in state.todos],
        "read_files": {
            path: [record.mtime_ns, record.size, record.partial]
            for path, record in state.read_files.items()
        },
    }


def apply_state_record(record: dict[str, Any], state: SessionState) -> None:
    """Put back what a replayed tool call had done to the shared state when it first ran."""
    state.cwd = Path(record["cwd"])
    state.todos = [dict(todo) for todo in record["todos"]]
    state.read_files = {
        path: FileRecord(int(mtime_ns), int(size), bool(partial))
        for path, (mtime_ns, size, partial) in record["read_files"].items()
    }
