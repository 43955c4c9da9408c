"""The CLI in a real subprocess: print mode's three output formats, exit codes, demo."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from error_advice import assert_says_what_to_do

CLI = [sys.executable, "-m", "loopwright.cli.main"]


def write_script(path: Path, steps: list[dict[str, object]]) -> Path:
    path.write_text(yaml.safe_dump(steps))
    return path


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL", "OPENAI_BASE_URL")
    }
    environment.update(env or {})
    # Without piped text the CLI gets /dev/null: never an inherited pipe it would wait on.
    return subprocess.run(
        [*CLI, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


def simple_script(tmp_path: Path) -> Path:
    return write_script(
        tmp_path / "script.yaml",
        [
            {"tool_call": {"name": "Bash", "input": {"command": "echo hello-from-bash"}}},
            {"text": "all done"},
        ],
    )


def test_text_output_prints_the_result(tmp_path: Path) -> None:
    script = simple_script(tmp_path)
    done = run_cli(
        "-p", "go", "--model", f"scripted:{script}", "--cwd", str(tmp_path), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "all done"


def test_json_output_is_the_result_message(tmp_path: Path) -> None:
    script = simple_script(tmp_path)
    done = run_cli(
        "-p", "go", "--model", f"scripted:{script}", "--output-format", "json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["type"], result["subtype"], result["num_turns"]) == ("result", "success", 1)


def test_stream_json_is_one_message_per_line_init_first_result_last(tmp_path: Path) -> None:
    script = simple_script(tmp_path)
    done = run_cli(
        "-p",
        "go",
        "--model",
        f"scripted:{script}",
        "--output-format",
        "stream-json",
        "--include-partial-messages",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert (lines[0]["type"], lines[0]["subtype"]) == ("system", "init")
    assert lines[-1]["type"] == "result"
    assert any(line["type"] == "stream_event" for line in lines)
    results = [
        b
        for line in lines
        if line["type"] == "user" and isinstance(line["message"]["content"], list)
        for b in line["message"]["content"]
    ]
    assert "hello-from-bash" in results[0]["content"]


def test_error_result_gives_a_non_zero_exit(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.yaml",
        [
            {"tool_call": {"name": "Bash", "input": {"command": "true"}}},
            {"tool_call": {"name": "Bash", "input": {"command": "true"}}},
        ],
    )
    done = run_cli("-p", "go", "--model", f"scripted:{script}", "--max-turns", "1", cwd=tmp_path)
    assert done.returncode == 1
    assert "error_max_turns" in done.stderr


def test_without_a_model_the_cli_says_what_to_set(tmp_path: Path) -> None:
    done = run_cli("-p", "go", cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert done.returncode == 2
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL"):
        assert variable in done.stderr


def test_broken_script_is_a_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.yaml"
    script.write_text("- {nothing: here}\n")
    done = run_cli("-p", "go", "--model", f"scripted:{script}", cwd=tmp_path)
    assert done.returncode != 0
    assert "bad.yaml, step 1" in done.stderr
    assert_says_what_to_do(done.stderr, "a step needs text, tool_call, tool_calls or error")


def test_demo_fixes_the_sample_project(tmp_path: Path) -> None:
    done = run_cli("demo", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "demo finished" in done.stdout
    assert "OK" in done.stdout


def test_an_empty_piped_prompt_is_a_clear_usage_error(tmp_path: Path) -> None:
    script = simple_script(tmp_path)
    done = subprocess.run(
        [*CLI, "--model", f"scripted:{script}"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no prompt" in done.stderr and '-p "PROMPT"' in done.stderr
    assert "Traceback" not in done.stderr


def test_an_empty_print_prompt_is_a_clear_usage_error(tmp_path: Path) -> None:
    done = run_cli("-p", "  ", "--model", f"scripted:{simple_script(tmp_path)}", cwd=tmp_path)
    assert done.returncode == 2
    assert "the prompt is empty" in done.stderr
    assert_says_what_to_do(done.stderr, 'say what to do: -p "PROMPT"')


# The flags, what the refusal says, and the fix it names (the last three name it in `said`).
NONSENSE_FLAGS = [
    (
        ["--resume-at", "abc"],
        "--resume-at applies to a resumed session",
        "add --resume SESSION_ID or --continue",
    ),
    (
        ["--fork-session"],
        "--fork-session applies to a resumed session",
        "add --resume SESSION_ID or --continue",
    ),
    (["--resume", "x", "--continue"], "give only one", "give only one"),
    (["--max-turns", "-1"], "--max-turns must be 0 or more", "must be 0 or more"),
    (["--max-budget-usd", "0"], "--max-budget-usd must be a positive amount", "positive amount"),
]


@pytest.mark.parametrize(
    ("flags", "said", "fix"),
    NONSENSE_FLAGS,
    ids=[f"flags{number}-{said}" for number, (_, said, _) in enumerate(NONSENSE_FLAGS)],
)
def test_flags_that_would_do_nothing_or_nonsense_are_refused(
    tmp_path: Path, flags: list[str], said: str, fix: str
) -> None:
    script = simple_script(tmp_path)
    done = run_cli("-p", "go", "--model", f"scripted:{script}", *flags, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert said in done.stderr
    assert_says_what_to_do(done.stderr, fix)


@pytest.mark.parametrize(
    "awkward", ["line\u2028separator", "next\x85line", "para\u2029graph", "not utf-8: \udcff"]
)
def test_a_json_line_is_one_line_of_utf8_whatever_the_text(awkward: str) -> None:
    from loopwright.cli.render import to_json_line
    from loopwright.messages import AssistantMessage, TextBlock

    message = AssistantMessage([TextBlock(f"{awkward} — ünïcode ✓ " + "x" * 200_000)], model="m")
    line = to_json_line(message)

    assert len(line.splitlines()) == 1
    line.encode("utf-8")  # writable to any UTF-8 stream
    assert json.loads(line)["content"][0]["text"].startswith(awkward)


def test_a_reader_that_leaves_early_ends_the_output_without_a_traceback(tmp_path: Path) -> None:
    script = write_script(tmp_path / "long.yaml", [{"text": "y" * 1_000_000}])
    environment = {k: v for k, v in os.environ.items() if k != "LOOPWRIGHT_MODEL"}
    command = [*CLI, "-p", "go", "--model", f"scripted:{script}", "--output-format", "stream-json"]
    writer = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment
    )
    assert writer.stdout is not None and writer.stderr is not None
    writer.stdout.read(10)
    writer.stdout.close()  # like `| head -c 10`
    stderr = writer.stderr.read().decode()
    assert writer.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
