"""Through the real loop: every built-in's malformed calls come back as errors, and it goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from error_advice import assert_says_what_to_do
from loopwright import Options, query
from loopwright.messages import ResultMessage, ToolResultBlock, UserMessage
from loopwright.testing import ScriptedModel, text, tool_calls

BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Read", {"file_path": "relative/path.txt"}),
    ("Write", {"file_path": "/definitely/not/read/before.txt", "content": 7}),
    ("Edit", {"file_path": "/no/such/file.py", "old_string": "a", "new_string": "b"}),
    ("Glob", {"pattern": ""}),
    ("Grep", {"pattern": "(unclosed"}),
    ("Bash", {"command": "exit 9"}),
    ("BashOutput", {"bash_id": "bash_404"}),
    ("KillShell", {"shell_id": "bash_404"}),
    ("WebFetch", {"url": "ftp://example.invalid/file"}),
    ("WebSearch", {"query": "anything at all"}),
    ("TodoWrite", {"todos": [{"content": "x", "status": "someday"}]}),
    ("AskUserQuestion", {"questions": []}),
]

# What each error tells the model to do instead, in BAD_CALLS order. Edit, Bash (not
# allowed in the default mode), WebFetch and WebSearch are denied before they run.
FIXES = [
    "must be an absolute path",
    "send the call again with arguments that match the tool's input schema",
    "add an allow rule such as allowed_tools=['Edit']",
    "pattern must be a non-empty string",
    "escape ( [ { . * + ? with a backslash",
    "add an allow rule such as allowed_tools=['Bash']",
    "running shells: none",
    "running shells: none",
    "add an allow rule such as allowed_tools=['WebFetch']",
    "add an allow rule such as allowed_tools=['WebSearch']",
    "send the call again with arguments that match the tool's input schema",
    "send the call again with arguments that match the tool's input schema",
]


async def test_bad_calls_become_error_results_and_the_loop_goes_on(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls(BAD_CALLS), text("all handled")])
    options = Options(model=model, cwd=tmp_path, persist_session=False)
    results: list[ToolResultBlock] = []
    final: ResultMessage | None = None
    async for message in query("exercise every tool", options):
        if isinstance(message, UserMessage):
            results += [b for b in message.blocks if isinstance(b, ToolResultBlock)]
        if isinstance(message, ResultMessage):
            final = message
    assert final is not None and final.subtype == "success" and final.result == "all handled"
    assert len(results) == len(BAD_CALLS)
    assert all(block.is_error for block in results), [b.text for b in results if not b.is_error]
    for block, fix in zip(results, FIXES, strict=True):
        assert_says_what_to_do(block.text, fix)
    model.assert_complete()
