"""The official TypeScript Claude Agent SDK (@anthropic-ai/claude-agent-sdk) with loopwright
as its executable (``pathToClaudeCodeExecutable``).

The SDK programs are in agent_sdk_ts/scenarios.mjs; each prints the messages the SDK
yields as JSON lines, then what its callbacks saw. The SDK is installed from the npm
registry by scripts/install-agent-sdk-ts.sh (``.ci/run`` runs it; so does this module's
first test when it is missing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loopwright.models.scripted import Step, text, tool_call, tool_calls
from system_deps import missing_system_dependency, require_program

from .agent_sdk_engines import ENGINES, engine, loopwright_cli

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).with_name("agent_sdk_ts") / "scenarios.mjs"
PACKAGE = "@anthropic-ai/claude-agent-sdk"


@pytest.fixture(scope="module")
def sdk_dir() -> Path:
    require_program("node", purpose="the TypeScript Agent SDK tests")
    require_program("npm", purpose="installing the TypeScript Agent SDK")
    target = Path(os.environ.get("LOOPWRIGHT_AGENT_SDK_TS_DIR") or REPO / ".agent-sdk-ts")
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "install-agent-sdk-ts.sh"), str(target)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        missing_system_dependency(
            f"{PACKAGE} could not be installed ({done.stderr.strip()[-300:]}); "
            "run: bash scripts/install-agent-sdk-ts.sh"
        )
    return target


@pytest.fixture
def program_dir(sdk_dir: Path, tmp_path: Path) -> Path:
    """A directory holding the scenarios beside the SDK's node_modules (ESM resolves
    packages from the script's own directory upwards)."""
    where = tmp_path / "program"
    where.mkdir()
    shutil.copy(SCENARIOS, where / SCENARIOS.name)
    (where / "node_modules").symlink_to(sdk_dir / "node_modules")
    (where / "package.json").write_text('{"type": "module"}')
    return where


@pytest.fixture(autouse=True)
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "LOOPWRIGHT_MODEL"):
        monkeypatch.delenv(name, raising=False)


class Run:
    def __init__(self, lines: list[dict[str, Any]], stderr: str) -> None:
        self.messages = [line for line in lines if "record" not in line]
        self.records = [line["record"] for line in lines if "record" in line]
        self.stderr = stderr

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]

    def result(self) -> dict[str, Any]:
        results = self.of_type("result")
        assert len(results) == 1, f"expected one result: {self.messages}\n{self.stderr}"
        return results[0]

    def tool_results(self) -> list[dict[str, Any]]:
        return [
            block
            for m in self.of_type("user")
            if isinstance(m["message"]["content"], list)
            for block in m["message"]["content"]
            if block.get("type") == "tool_result"
        ]


def run_scenario(program: Path, scenario: str, steps: list[Step], tmp_path: Path, kind: str) -> Run:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    with engine(kind, steps, tmp_path) as model:
        config = {
            "scenario": scenario,
            "cli": loopwright_cli(),
            "model": model.model,
            "cwd": str(work),
            "env": model.env,
        }
        done = subprocess.run(
            ["node", str(program / SCENARIOS.name), json.dumps(config)],
            capture_output=True,
            text=True,
            timeout=90,
            cwd=program,
        )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Run(lines, done.stderr)


@pytest.fixture
def scenario(program_dir: Path, tmp_path: Path) -> Iterator[Any]:
    yield lambda name, steps, kind="scripted": run_scenario(
        program_dir, name, steps, tmp_path, kind
    )


@pytest.mark.parametrize("kind", ENGINES)
def test_typescript_one_shot_query_ends_in_a_success_result(scenario: Any, kind: str) -> None:
    run = scenario("oneShot", [text("Hello from loopwright")], kind)
    init = run.of_type("system")[0]
    assert init["subtype"] == "init" and init["claude_code_version"]
    result = run.result()
    assert (result["subtype"], result["num_turns"], result["result"]) == (
        "success",
        1,
        "Hello from loopwright",
    )


@pytest.mark.parametrize("kind", ENGINES)
def test_typescript_built_in_tool_result_comes_back(scenario: Any, kind: str) -> None:
    steps = [tool_call("Bash", command="echo hi-from-bash"), text("done")]
    run = scenario("builtinTool", steps, kind)
    [block] = run.tool_results()
    assert "hi-from-bash" in str(block["content"]) and not block["is_error"]


def test_typescript_tools_empty_means_no_built_in_tools(scenario: Any) -> None:
    run = scenario("noTools", [text("ok")])
    assert "Bash" not in run.of_type("system")[0]["tools"]


@pytest.mark.parametrize("kind", ENGINES)
def test_typescript_sdk_mcp_tool_runs_in_the_node_process(scenario: Any, kind: str) -> None:
    run = scenario("sdkMcp", [tool_call("mcp__calc__add", a=2, b=3), text("5")], kind)
    assert {"called": {"a": 2, "b": 3}} in run.records, (run.tool_results(), run.stderr)
    [block] = run.tool_results()
    assert "5" in str(block["content"]) and not block["is_error"]


@pytest.mark.parametrize("kind", ENGINES)
def test_typescript_can_use_tool_rewrites_and_denies(scenario: Any, kind: str) -> None:
    steps = [
        tool_call("Bash", command="touch first"),
        tool_call("Bash", command="touch second"),
        text("done"),
    ]
    run = scenario("canUseTool", steps, kind)
    assert [r["asked"] for r in run.records if "asked" in r] == ["touch first", "touch second"]
    first, second = run.tool_results()
    assert "rewritten" in str(first["content"]) and not first["is_error"]
    assert second["is_error"] and "no second command today" in str(second["content"])


def test_typescript_hook_callback_denies_the_call(scenario: Any) -> None:
    run = scenario("hook", [tool_call("Bash", command="rm -rf build"), text("ok")])
    assert {"hookInput": {"command": "rm -rf build"}} in run.records
    [block] = run.tool_results()
    assert block["is_error"] and "rm is not allowed here" in str(block["content"])


def test_typescript_max_turns_ends_in_error_max_turns(scenario: Any) -> None:
    run = scenario("maxTurns", [tool_call("Bash", command="echo one"), text("never")])
    result = run.result()
    assert (result["subtype"], result["num_turns"]) == ("error_max_turns", 2)
    assert any("error result" in r.get("error", "") for r in run.records)


@pytest.mark.parametrize("kind", ENGINES)
def test_typescript_partial_messages_are_anthropic_stream_events(scenario: Any, kind: str) -> None:
    steps = [tool_calls([("Bash", {"command": "echo x"})], text="Let me run it"), text("fine")]
    run = scenario("partial", steps, kind)
    events = [m["event"] for m in run.of_type("stream_event")]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds.count("message_stop") == 2
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert "Let me run it" in "".join(d.get("text", "") for d in deltas)


def test_typescript_structured_output_is_in_the_result(scenario: Any) -> None:
    run = scenario("structured", [tool_call("StructuredOutput", answer=42)])
    assert run.result()["structured_output"] == {"answer": 42}


def test_typescript_interrupt_ends_the_turn_with_error_during_execution(scenario: Any) -> None:
    run = scenario("interrupt", [tool_call("Bash", command="sleep 30"), text("unused")])
    result = run.result()
    assert (result["subtype"], result["is_error"]) == ("error_during_execution", True)


def test_typescript_set_permission_mode_lets_the_next_write_through(
    scenario: Any, tmp_path: Path
) -> None:
    target = tmp_path / "work" / "notes.txt"
    write = {"file_path": str(target), "content": "hello"}
    steps = [tool_call("Write", **write), text("no"), tool_call("Write", **write), text("yes")]
    run = scenario("permissionMode", steps)
    first, second = run.tool_results()
    assert first["is_error"] and not second["is_error"]
    assert target.read_text() == "hello"


def test_the_typescript_example_runs_on_the_scripted_model(program_dir: Path) -> None:
    example = REPO / "examples" / "agent_sdk"
    shutil.copy(example / "typescript_sdk.mjs", program_dir / "example.mjs")
    env = {
        **os.environ,
        "LOOPWRIGHT_MODEL": f"scripted:{example / 'script.yaml'}",
        "LOOPWRIGHT_CLI": loopwright_cli(),
    }
    done = subprocess.run(
        ["node", str(program_dir / "example.mjs")],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=program_dir,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["There are 4 words.", "[success, 2 turns]"]
