"""What durable steps record comes back as the same responses, results and state."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

from loopwright.durable.records import (
    apply_state_record,
    response_from_record,
    response_to_record,
    tool_result_from_record,
    tool_result_to_record,
)
from loopwright.messages import (
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from loopwright.models.base import ModelResponse
from loopwright.tools.base import FileRecord, SessionState, ToolResult


def test_model_response_round_trips() -> None:
    response = ModelResponse(
        content=[
            ThinkingBlock("hmm", signature="sig", provider_data={"id": "r1"}),
            TextBlock("calling"),
            ToolUseBlock("toolu_1", "Read", {"file_path": "/x"}),
        ],
        usage=Usage(input_tokens=7, output_tokens=3, cache_read_input_tokens=2),
        stop_reason="tool_use",
        model="claude-x",
        message_id="msg_1",
        provider_data={"opaque": [1, 2]},
    )
    assert response_from_record(response_to_record(response)) == response


def test_tool_result_with_blocks_round_trips() -> None:
    state = SessionState(cwd=Path("/tmp"))
    result = ToolResult([TextBlock("see"), ImageBlock("image/png", "aGk=")], is_error=False)
    assert tool_result_from_record(tool_result_to_record(result, state)) == result


def test_replayed_state_replaces_the_live_one() -> None:
    before = SessionState(
        cwd=Path("/work/sub"),
        read_files={"/work/a.py": FileRecord(5, 10, partial=True)},
        todos=[{"content": "x", "status": "pending"}],
    )
    record = tool_result_to_record(ToolResult("ok"), before)["state"]
    fresh = SessionState(cwd=Path("/work"))
    apply_state_record(record, fresh)
    assert fresh.cwd == before.cwd
    assert fresh.read_files == before.read_files
    assert fresh.todos == before.todos
