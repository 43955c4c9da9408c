"""A 500-turn session with big tool outputs stays inside an 8k window through compaction."""

from __future__ import annotations

from loopwright.context import (
    CompactionBreaker,
    CompactionSettings,
    ContextMeter,
    compact,
    should_compact,
)
from loopwright.context.tokens import estimate_message_tokens
from loopwright.messages import (
    AssistantMessage,
    ConversationMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import ModelRequest
from loopwright.stores import check_pairing
from loopwright.testing import FunctionModel, Step, text

TASK = "Migrate every module under src/legacy/ to the new logging API; report what changed."
WINDOW = 8_000


def _turn(n: int) -> list[ConversationMessage]:
    call = ToolUseBlock(f"call-{n}", "Bash", {"command": f"grep -rn log src/legacy/m{n}.py"})
    output = "\n".join(f"src/legacy/m{n}.py:{i}: log.info('x')" for i in range(150))
    return [
        AssistantMessage([TextBlock(f"checking module {n}"), call], model="scripted"),
        UserMessage([ToolResultBlock(call.id, output)]),
    ]


async def test_five_hundred_turns_compact_repeatedly_and_keep_the_task() -> None:
    summaries: list[ModelRequest] = []

    def summariser(request: ModelRequest) -> Step:
        summaries.append(request)
        return text(f"Summary {len(summaries)}: modules checked so far use log.info.")

    model = FunctionModel(summariser, name="scripted")
    meter, breaker = ContextMeter(WINDOW), CompactionBreaker()
    settings = CompactionSettings(instructions="Name every module checked.")
    task = UserMessage(TASK)
    history: list[ConversationMessage] = [task]
    stages: list[str] = []
    for n in range(500):
        history.extend(_turn(n))
        # The provider reports what the request that produced the assistant message took.
        size = sum(estimate_message_tokens(m) for m in history[:-1])
        meter.record(Usage(input_tokens=size), history[:-1])
        tokens = meter.count(history).tokens
        if should_compact(tokens, WINDOW) and breaker.allow():
            result = await compact(
                history, model, window=WINDOW, settings=settings, pre_tokens=tokens
            )
            breaker.record_success()
            history, _ = result.messages, meter.reset()
            stages.append(result.stage)
            assert result.post_tokens < 0.8 * WINDOW
        assert meter.count(history).tokens < WINDOW
        assert history[0] == task  # the model always receives the task statement verbatim
    print(
        f"compactions: {stages.count('summarised')} summarised, {stages.count('cleared')} cleared"
    )
    assert stages.count("summarised") >= 10 and stages.count("cleared") >= 10
    assert check_pairing(history) == []
    calls = [c.id for m in history if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [
        b.tool_use_id
        for m in history
        if isinstance(m, UserMessage)
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    ]
    assert sorted(calls) == sorted(results) and len(set(results)) == len(results)
    assert all("Name every module checked." in r.system for r in summaries)
    assert all(len(str(r.messages[0].content)) < WINDOW * 4 for r in summaries)
