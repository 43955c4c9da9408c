"""Claude Code's flags and habits on loopwright's CLI, and the host mode's raw protocol.

Run as a user runs them: ``python -m loopwright.cli.main`` in a subprocess, a scripted
model, and what comes out on stdout, stderr and in the exit code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from loopwright.cli.host.wire import MAX_LINE_BYTES, encode_line

from .test_cli import CLI, run_cli, write_script

BASH_THEN_DONE = [
    {"tool_call": {"name": "Bash", "input": {"command": "touch made-by-bash"}}},
    {"text": "all done"},
]


def stream_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_camel_case_allowed_tools_approves_the_call(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", BASH_THEN_DONE)
    done = run_cli(
        "-p", "go", "--model", f"scripted:{script}", "--allowedTools", "Bash", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "made-by-bash").exists()


def test_tools_empty_string_gives_the_model_no_built_in_tools(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "ok"}])
    for spelling in (["--tools", ""], ["--tools="]):
        done = run_cli(
            "-p", "hi", "--model", f"scripted:{script}", "--output-format", "stream-json",
            *spelling, cwd=tmp_path,
        )  # fmt: skip
        init = stream_lines(done.stdout)[0]
        assert init["subtype"] == "init" and init["tools"] == [], spelling


def test_a_malformed_rule_is_one_line_and_exit_2_not_a_traceback(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "ok"}])
    done = run_cli(
        "-p", "hi", "--model", f"scripted:{script}", "--allowed-tools", "Bash(", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "--allowed-tools" in done.stderr and "Bash(npm run *)" in done.stderr


def test_a_positional_prompt_runs_when_stdin_is_dev_null(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "answered"}])
    done = run_cli("--model", f"scripted:{script}", "do it", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered"


def test_version_prints_one_line_and_exits_0(tmp_path: Path) -> None:
    done = run_cli("--version", cwd=tmp_path)
    assert done.returncode == 0
    from loopwright import __version__

    assert done.stdout.startswith(__version__) and "loopwright" in done.stdout


def test_model_comes_from_the_project_settings_file(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "from settings"}])
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"model": f"scripted:{script}"}))
    done = run_cli("-p", "hi", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from settings"


def test_settings_flag_json_sets_the_model_and_permissions(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", BASH_THEN_DONE)
    settings = {"model": f"scripted:{script}", "permissions": {"allow": ["Bash"]}}
    done = run_cli("-p", "go", "--settings", json.dumps(settings), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "made-by-bash").exists()


def test_json_schema_flag_returns_the_structured_output(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.yaml", [{"tool_call": {"name": "StructuredOutput", "input": {"n": 7}}}]
    )
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    done = run_cli(
        "-p", "seven", "--model", f"scripted:{script}", "--json-schema", json.dumps(schema),
        "--output-format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert json.loads(done.stdout)["structured_output"] == {"n": 7}


def test_unknown_flags_are_refused_outside_host_mode(tmp_path: Path) -> None:
    done = run_cli("-p", "hi", "--frobnicate", cwd=tmp_path)
    assert done.returncode == 2 and "--frobnicate" in done.stderr


def test_fleet_without_the_durable_extra_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['dbos'] = None\n"  # as if the durable extra were missing
        "from loopwright.cli.main import main\n"
        "sys.exit(main(['fleet', '--help']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "pip install 'loopwright[durable]'" in done.stderr


# --------------------------------------------------------------------------- host mode


def host(*lines: dict[str, Any], args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    flags = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
    return subprocess.run(
        [*CLI, *flags, "--no-session-persistence", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def control(request_id: str, subtype: str, **fields: Any) -> dict[str, Any]:
    request = {"subtype": subtype, **fields}
    return {"type": "control_request", "request_id": request_id, "request": request}


def user(text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": text},
        "parent_tool_use_id": None,
    }


def test_host_answers_an_unknown_control_request_with_an_error(tmp_path: Path) -> None:
    requests = [control("a", "initialize", hooks=None), control("b", "get_settings")]
    done = host(*requests, args=[], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    responses = {r["response"]["request_id"]: r["response"] for r in stream_lines(done.stdout)}
    assert responses["a"]["subtype"] == "success"
    assert responses["a"]["response"]["hooks_applied"] is True
    assert responses["b"]["subtype"] == "error" and "get_settings" in responses["b"]["error"]


def test_host_runs_one_turn_per_user_line_and_exits_at_eof(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "one"}, {"text": "two"}])
    done = host(
        control("i", "initialize"), user("first"), user("second"),
        args=["--model", f"scripted:{script}", "--unknown-newer-flag", "value"], cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = stream_lines(done.stdout)
    assert [line["result"] for line in lines if line["type"] == "result"] == ["one", "two"]
    assert [line.get("subtype") for line in lines if line["type"] == "system"] == ["init", "init"]
    assert "unknown flag --unknown-newer-flag ignored" in done.stderr


def test_host_reports_a_session_that_cannot_start_in_an_error_result(tmp_path: Path) -> None:
    done = host(user("hi"), args=["--model", "nosuchprovider:x"], cwd=tmp_path)
    assert done.returncode == 1
    [result] = [line for line in stream_lines(done.stdout) if line["type"] == "result"]
    assert result["is_error"] and "nosuchprovider" in result["errors"][0]


def test_a_line_over_the_sdk_limit_is_shortened_not_split() -> None:
    block = {"type": "tool_result", "content": "x" * 3_000_000}
    data = {"type": "user", "message": {"content": [block]}}
    line = encode_line(data)
    assert len(line) <= MAX_LINE_BYTES and line.endswith(b"\n") and line.count(b"\n") == 1
    assert "cut by loopwright" in json.loads(line)["message"]["content"][0]["content"]


class LiveHost:
    """The host as a running process: write lines, read lines until one matches."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        flags = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
        self.process = subprocess.Popen(
            [*CLI, *flags, "--no-session-persistence", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )

    def send(self, line: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(line) + "\n")
        self.process.stdin.flush()

    def read_until(self, wanted: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        for raw in self.process.stdout:  # the test's timeout bounds a host that never says it
            line = json.loads(raw)
            if line["type"] == wanted:
                return line
        raise AssertionError(f"the host ended before a {wanted} line")

    def finish(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def test_an_interrupt_cancels_the_pending_can_use_tool_request(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.yaml", [{"tool_call": {"name": "Bash", "input": {"command": "touch x"}}}]
    )
    live = LiveHost(
        ["--model", f"scripted:{script}", "--permission-prompt-tool", "stdio"], tmp_path
    )
    live.send(control("i", "initialize"))
    live.send(user("go"))
    asked = live.read_until("control_request")
    assert asked["request"]["subtype"] == "can_use_tool"
    assert asked["request"]["input"] == {"command": "touch x"}
    live.send(control("stop", "interrupt"))
    cancel = live.read_until("control_cancel_request")
    assert cancel["request_id"] == asked["request_id"]
    result = live.read_until("result")
    assert (result["subtype"], result["is_error"]) == ("error_during_execution", True)
    assert live.finish() == 1  # the last result was an error, as Claude Code exits
    assert not (tmp_path / "x").exists()


def test_set_model_and_get_context_usage_answer_over_control(tmp_path: Path) -> None:
    first = write_script(tmp_path / "a.yaml", [{"text": "from a"}])
    second = write_script(tmp_path / "b.yaml", [{"text": "from b"}])
    live = LiveHost(["--model", f"scripted:{first}"], tmp_path)
    live.send(control("i", "initialize"))
    live.send(user("one"))
    assert live.read_until("result")["result"] == "from a"
    live.send(control("m", "set_model", model=f"scripted:{second}"))
    assert live.read_until("control_response")["response"]["subtype"] == "success"
    live.send(control("c", "get_context_usage"))
    usage = live.read_until("control_response")["response"]["response"]
    assert usage["totalTokens"] > 0 and usage["maxTokens"] > usage["totalTokens"]
    live.send(user("two"))
    assert live.read_until("result")["result"] == "from b"
    assert live.finish() == 0


def test_in_host_mode_stray_writes_to_stdout_go_to_stderr(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "from loopwright.cli.host.wire import LineWriter, claim_stdout\n"
        "writer = LineWriter(claim_stdout())\n"
        "print('stray print', flush=True)\n"
        "os.system('echo stray child')\n"  # a child process that inherited fd 1
        "writer.write({'type': 'keep_alive'})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"type": "keep_alive"}\n'
    assert "stray print" in done.stderr and "stray child" in done.stderr


def test_an_sdk_server_the_sdk_does_not_know_is_a_failed_server_not_a_failed_session(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "s.yaml", [{"text": "still here"}])
    config = json.dumps({"mcpServers": {"ghost": {"type": "sdk", "name": "ghost"}}})
    live = LiveHost(["--model", f"scripted:{script}", "--mcp-config", config], tmp_path)
    live.send(control("i", "initialize"))
    live.send(user("hi"))
    asked = live.read_until("control_request")
    assert asked["request"]["subtype"] == "mcp_message"
    assert asked["request"]["message"]["method"] == "initialize"
    error = {"code": -32601, "message": "Server 'ghost' not found"}  # the Python SDK's answer
    unknown = {"jsonrpc": "2.0", "id": 1, "error": error}
    live.send(
        {
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": asked["request_id"],
                "response": {"mcp_response": unknown},
            },
        }
    )
    init = live.read_until("system")
    [ghost] = init["mcp_servers"]
    assert ghost == {"name": "ghost", "status": "failed"}
    assert live.read_until("result")["result"] == "still here"
    assert live.finish() == 0
