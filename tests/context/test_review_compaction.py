"""Review findings on compaction."""

from __future__ import annotations

from loopwright.context import summarise
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.testing import ScriptedModel, text


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
