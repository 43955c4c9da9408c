"""Hooks through the real loop: which events fire (a subagent's run fires no session
events), what their inputs carry, and a hook that stops the run."""

from pathlib import Path
from typing import Any

from loopwright import AgentDefinition, Options, run
from loopwright.hooks.runner import HookMatcher
from loopwright.testing import FunctionModel, ScriptedModel, text, tool_call
from support import base_options, look


async def test_post_tool_use_continue_false_stops_the_run() -> None:
    async def halt(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        return {"continue": False, "stopReason": "enough"}

    model = FunctionModel(lambda request: tool_call("look", path="a"))
    result = await run(
        "go",
        base_options(model, hooks={"PostToolUse": [HookMatcher(None, [halt])]}, max_turns=3),
    )
    assert len(model.requests) == 1
    assert result.subtype != "error_max_turns"


async def test_subagent_does_not_fire_session_start_or_user_prompt_submit() -> None:
    events: list[str] = []

    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        events.append(input["hook_event_name"])
        return {}

    model = ScriptedModel(
        [
            tool_call("Agent", description="r", prompt="review", subagent_type="reviewer"),
            text("fine"),
            text("done"),
        ]
    )
    hooks = {event: [HookMatcher(None, [note])] for event in ("SessionStart", "UserPromptSubmit")}
    await run(
        "go",
        base_options(
            model,
            tools=[look, "Agent"],
            agents={"reviewer": AgentDefinition(description="r", prompt="Review.")},
            hooks=hooks,
        ),
    )
    assert events == ["SessionStart", "UserPromptSubmit"]


async def test_hook_inputs_carry_the_transcript_path() -> None:
    seen: list[dict[str, Any]] = []

    async def note(input: dict[str, Any], tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append(dict(input))
        return {}

    model = ScriptedModel([tool_call("look", path="a"), text("done")])
    options = Options(
        model=model,
        tools=[look],
        permission_mode="bypassPermissions",
        setting_sources=[],
        hooks={"PreToolUse": [HookMatcher(None, [note])], "Stop": [HookMatcher(None, [note])]},
    )
    await run("go", options)
    assert [i["hook_event_name"] for i in seen] == ["PreToolUse", "Stop"]
    assert all(Path(i.get("transcript_path", "")).is_file() for i in seen)
