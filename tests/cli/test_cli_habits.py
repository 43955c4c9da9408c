"""Claude Code habits: piped input with -p, stream-json's shape, whole ids and prefixes,
options after the subcommand, --continue that must find a session, prune, spill files."""

from __future__ import annotations

import json
import time
from pathlib import Path

from loopwright.tools.spill import loopwright_home

from .test_cli import run_cli, simple_script, write_script


def stream(tmp_path: Path, *flags: str, stdin: str | None = None) -> list[dict[str, object]]:
    script = simple_script(tmp_path)
    done = run_cli(
        "-p", "why did this fail?", "--model", f"scripted:{script}",
        "--output-format", "stream-json", *flags, cwd=tmp_path, stdin=stdin,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def new_session(tmp_path: Path, session_id: str, *, prompt: str = "go") -> None:
    done = run_cli(
        "-p", prompt, "--model", f"scripted:{simple_script(tmp_path)}",
        "--session-id", session_id, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_piped_input_is_appended_to_the_print_prompt_with_a_note(tmp_path: Path) -> None:
    lines = stream(tmp_path, stdin="ERROR: disk full at step 3\n")
    prompt = next(line for line in lines if line["type"] == "user")["message"]
    assert isinstance(prompt, dict)
    text = prompt["content"]
    assert isinstance(text, str)
    assert text.startswith("why did this fail?")
    assert "piped to loopwright on standard input" in text
    assert "ERROR: disk full at step 3" in text


def test_without_piped_input_the_prompt_is_unchanged(tmp_path: Path) -> None:
    lines = stream(tmp_path)
    prompt = next(line for line in lines if line["type"] == "user")["message"]
    assert prompt == {"role": "user", "content": "why did this fail?"}


def test_stream_json_lines_have_claude_codes_shape(tmp_path: Path) -> None:
    lines = stream(tmp_path)
    init, result = lines[0], lines[-1]
    assert (init["type"], init["subtype"]) == ("system", "init")
    session_id = init["session_id"]
    assert isinstance(session_id, str) and len(session_id) == 36
    assert "tools" in init and init["permissionMode"] == "default"
    assert all(line["session_id"] == session_id for line in lines)
    assistant = next(line for line in lines if line["type"] == "assistant")
    body = assistant["message"]
    assert isinstance(body, dict)
    assert (body["role"], body["type"]) == ("assistant", "message")
    assert body["content"][0]["type"] == "tool_use"
    assert "parent_tool_use_id" in assistant
    assert (result["type"], result["subtype"], result["result"]) == (
        "result",
        "success",
        "all done",
    )


def test_continue_without_an_earlier_session_is_an_error(tmp_path: Path) -> None:
    done = run_cli(
        "-p", "go", "--continue", "--model", f"scripted:{simple_script(tmp_path)}", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "no earlier session" in done.stderr and "drop --continue" in done.stderr


def test_resume_accepts_a_unique_prefix(tmp_path: Path) -> None:
    new_session(tmp_path, "3b6e2dab-3e13-4f7d-b1f9-0123456789ab", prompt="first prompt")
    lines = stream(tmp_path, "--resume", "3b6e2d")
    assert lines[0]["session_id"] == "3b6e2dab-3e13-4f7d-b1f9-0123456789ab"


def test_an_ambiguous_prefix_names_the_candidates(tmp_path: Path) -> None:
    new_session(tmp_path, "abc-one")
    new_session(tmp_path, "abc-two")
    done = run_cli("sessions", "show", "abc", cwd=tmp_path)
    assert done.returncode == 2
    assert "matches 2 sessions" in done.stderr and "abc-one" in done.stderr
    assert "type more of the id" in done.stderr


def test_sessions_show_takes_a_prefix_and_prints_unicode_as_is(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "tokyo.yaml",
        [
            {"tool_call": {"name": "TodoWrite", "input": {"todos": [{"content": "東京へ行く"}]}}},
            {"text": "ok"},
        ],
    )
    ran = run_cli(
        "-p", "東京", "--model", f"scripted:{script}", "--session-id", "tokyo-session-1",
        cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    done = run_cli("sessions", "show", "tokyo", cwd=tmp_path, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "東京へ行く" in done.stdout and "\\u6771" not in done.stdout


def test_sessions_list_prints_whole_ids_when_piped_and_the_directory_with_all(
    tmp_path: Path,
) -> None:
    session_id = "3b6e2dab-3e13-4f7d-b1f9-0123456789ab"
    new_session(tmp_path, session_id, prompt="a long first prompt " * 10)
    listed = run_cli("sessions", "list", cwd=tmp_path, env={"COLUMNS": "80"})
    assert session_id in listed.stdout, listed.stdout
    everywhere = run_cli("sessions", "list", "--all", cwd=tmp_path, env={"COLUMNS": "80"})
    assert session_id in everywhere.stdout
    assert "directory" in everywhere.stdout


def test_options_are_accepted_after_the_subcommand(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    new_session(project, "exported-session")
    done = run_cli("sessions", "export", "exported", "--cwd", str(project), "-o", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "<html" in done.stdout


def _age_transcript(session_id: str, days: float) -> None:
    (path,) = (loopwright_home() / "projects").glob(f"*/{session_id}.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        record["timestamp"] = time.time() - days * 86400
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_prune_deletes_old_sessions_and_their_saved_output(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "long.yaml",
        [
            {"tool_call": {"name": "Bash", "input": {"command": "seq 1 20000"}}},
            {"text": "done"},
        ],
    )
    ran = run_cli(
        "-p", "go", "--model", f"scripted:{script}", "--session-id", "old-one",
        "--permission-mode", "bypassPermissions", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    new_session(tmp_path, "recent-one")
    saved = loopwright_home() / "tool-output" / "old-one"
    assert any(saved.rglob("*.log")), "the long Bash output is kept with its session"
    _age_transcript("old-one", days=40)

    done = run_cli("sessions", "prune", "--older-than", "30d", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "deleted old-one" in done.stdout and "recent-one" not in done.stdout
    assert not saved.exists()
    left = run_cli("sessions", "list", "--json", cwd=tmp_path)
    assert [json.loads(line)["session_id"] for line in left.stdout.splitlines()] == ["recent-one"]


def test_a_run_leaves_nothing_in_the_system_temp_dir(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = write_script(
        tmp_path / "long.yaml",
        [
            {"tool_call": {"name": "Bash", "input": {"command": "seq 1 20000"}}},
            {"tool_call": {"name": "Bash", "input": {"command": "echo short"}}},
            {"text": "done"},
        ],
    )
    done = run_cli(
        "-p", "go", "--model", f"scripted:{script}", "--permission-mode", "bypassPermissions",
        cwd=tmp_path, env={"TMPDIR": str(temp)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list(temp.iterdir()) == []


def test_cwd_before_a_subcommand_reaches_the_subcommand(tmp_path: Path) -> None:

    project = tmp_path / "project"
    project.mkdir()
    done = run_cli("--cwd", str(project), "sessions", "list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "unrecognized" not in done.stderr


def test_demo_help_explains_and_an_unknown_demo_flag_is_a_usage_error(tmp_path: Path) -> None:

    helped = run_cli("demo", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "usage: loopwright demo" in helped.stdout
    assert "fixes a failing test" not in helped.stdout  # it explained instead of running

    wrong = run_cli("demo", "--bogus", cwd=tmp_path)
    assert wrong.returncode == 2 and "--bogus" in wrong.stderr


def test_a_max_turns_error_line_says_what_to_do(tmp_path: Path) -> None:

    script = write_script(
        tmp_path / "s.yaml",
        [{"tool_call": {"name": "Read", "input": {"file_path": str(tmp_path / "s.yaml")}}}] * 3,
    )
    done = run_cli(
        "-p",
        "go",
        "--model",
        f"scripted:{script}",
        "--max-turns",
        "1",
        "--allowed-tools",
        "Read",
        "--cwd",
        str(tmp_path),
        cwd=tmp_path,
    )
    assert done.returncode != 0
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("error: error_max_turns: ") and "--max-turns" in line
