"""A subagent that compacts its context keeps its task statement, and its summary stays
in its own history."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from loopwright import AgentDefinition, query, tool
from loopwright.context import summarise
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    ResultMessage,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ModelRequest
from loopwright.testing import FunctionModel, ScriptedModel, Step, text, tool_call
from support import base_options


async def test_a_subagents_compaction_keeps_its_task_statement() -> None:
    # Every message of a subagent's own history carries the Agent call's id.
    agent_call = "toolu_agent"
    task = UserMessage("Review src/parse.py for unsafe eval calls.", agent_call)
    history: list[ConversationMessage] = [task]
    for n in range(4):
        call = ToolUseBlock(f"c{n}", "Read", {"file_path": f"/src/f{n}.py"})
        history.append(AssistantMessage([call], parent_tool_use_id=agent_call))
        history.append(UserMessage([ToolResultBlock(call.id, "x" * 4000)], agent_call))
    model = ScriptedModel([text("summary: read f0-f3, no eval found yet")])
    result = await summarise(history, model, keep_recent_turns=1, window=8000)
    assert result.messages[0] == task
    assert isinstance(task.content, str)
    summarised = model.requests[0].messages[0]
    assert isinstance(summarised.content, str) and task.content not in summarised.content
    assert result.messages[-2:] == history[-2:]  # the recent turn, verbatim
    summary = result.messages[1]
    assert isinstance(summary, UserMessage) and summary.parent_tool_use_id == agent_call
    assert isinstance(summary.content, str) and "no eval found yet" in summary.content


@tool(read_only=True)
def peek(path: str) -> str:
    """Look at a file."""
    return f"contents of {path}: " + "x" * 3000


async def test_a_subagent_compacting_its_context_keeps_its_task(tmp_path: Path) -> None:
    reviewer = AgentDefinition(description="Reviews", prompt="Review only.", tools=["peek"])
    subagent_requests: list[ModelRequest] = []

    def answer(request: ModelRequest) -> Step:
        if request.metadata.get("purpose") == "compaction":
            return text("summary: peeked at several files")
        if request.system.startswith("Review only."):
            subagent_requests.append(request)
            if len(subagent_requests) < 7:
                # No provider count: the context is estimated, as on a server without usage.
                return replace(tool_call("peek", path=f"f{len(subagent_requests)}"), usage=Usage())
            return text("fine")
        if len(request.messages) == 1:
            return tool_call(
                "Agent", description="r", prompt="TASK: review a", subagent_type="reviewer"
            )
        return text("done")

    options = base_options(
        FunctionModel(answer),
        cwd=tmp_path,
        tools=[peek, "Agent"],
        agents={"reviewer": reviewer},
        context_window=4000,
    )
    messages = [m async for m in query("go", options)]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
    sizes = [len(r.messages) for r in subagent_requests]
    assert any(later < earlier for earlier, later in pairwise(sizes))  # it compacted
    for request in subagent_requests:
        assert request.messages[0].content == "TASK: review a"
