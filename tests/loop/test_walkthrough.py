"""The seed walkthrough: tests fail → read → edit → tests pass → answer, with real tools."""

import subprocess
import sys
from pathlib import Path

from error_advice import assert_says_what_to_do
from loopwright import query
from loopwright.cli.demo import copy_demo_project
from loopwright.messages import (
    AssistantMessage,
    ResultMessage,
)
from loopwright.testing import ScriptedModel, text, tool_call
from support import base_options, tool_results


async def test_agent_fixes_the_failing_test_with_real_tools(tmp_path: Path) -> None:
    project = copy_demo_project(tmp_path)
    calc = project / "calc.py"
    run_tests = f"{sys.executable} -m unittest 2>&1 | tail -n 3"
    model = ScriptedModel(
        [
            tool_call("Bash", command=run_tests),
            tool_call("Read", file_path=str(calc)),
            tool_call(
                "Edit", file_path=str(calc), old_string="return a - b", new_string="return a + b"
            ),
            tool_call("Bash", command=run_tests),
            text("Fixed add()."),
        ]
    )
    options = base_options(model, cwd=project, tools=["Bash", "Read", "Edit"])
    messages = [m async for m in query("Fix the failing test", options)]

    results = tool_results(messages)
    assert "FAILED" in results[0].text
    assert "return a - b" in results[1].text
    assert not results[2].is_error
    assert results[3].text.strip().endswith("OK")
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.num_turns, result.result) == ("success", 4, "Fixed add().")
    assert sum(isinstance(m, AssistantMessage) for m in messages) == 5
    check = subprocess.run([sys.executable, "-m", "unittest"], cwd=project, capture_output=True)
    assert check.returncode == 0
    model.assert_complete()


async def test_edit_without_a_prior_read_is_refused_and_the_model_can_recover(
    tmp_path: Path,
) -> None:
    project = copy_demo_project(tmp_path)
    calc = str(project / "calc.py")
    edit = {"file_path": calc, "old_string": "return a - b", "new_string": "return a + b"}
    model = ScriptedModel(
        [
            tool_call("Edit", **edit),
            tool_call("Read", file_path=calc),
            tool_call("Edit", **edit),
            text("done"),
        ]
    )
    messages = [
        m
        async for m in query(
            "fix",
            base_options(model, cwd=project, tools=["Read", "Edit"]),
        )
    ]
    results = tool_results(messages)
    assert results[0].is_error and "Read" in results[0].text
    assert_says_what_to_do(results[0].text, "Read it before you edit it")
    assert not results[2].is_error
    assert "return a + b" in (project / "calc.py").read_text()
