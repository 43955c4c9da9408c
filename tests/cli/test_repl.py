"""The interactive CLI on a real pseudo-terminal, with a scripted model and real tools."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .conftest import READY

PROMPT = READY  # the line editor waits for a prompt
ASK = "[a]lways allow "

StartCli = Callable[..., Any]


def write_script(path: Path, steps: list[dict[str, object]]) -> str:
    path.write_text(yaml.safe_dump(steps))
    return f"scripted:{path}"


def bash_step(command: str, text: str = "") -> dict[str, object]:
    step: dict[str, object] = {"tool_call": {"name": "Bash", "input": {"command": command}}}
    if text:
        step["text"] = text
    return step


def test_prompt_permission_tool_result_answer_cost_and_exit(
    tmp_path: Path, start_cli: StartCli
) -> None:
    model = write_script(
        tmp_path / "s.yaml",
        [
            bash_step("echo made-by-tool > made.txt && cat made.txt", "Writing the file."),
            {"text": "The file now says made-by-tool."},
        ],
    )
    cli = start_cli("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect("/help for commands")
    cli.expect(PROMPT)
    cli.send_line("please make the file")
    cli.expect("Writing the file.")
    cli.expect("● Bash(echo made-by-tool > made.txt && cat made.txt)")
    cli.expect("? allow Bash(echo made-by-tool > made.txt && cat made.txt)")
    cli.expect(ASK)
    cli.send_line("y")
    cli.expect("⎿ made-by-tool")
    cli.expect("The file now says made-by-tool.")
    cli.expect("success · 1 turn(s)")
    cli.expect(PROMPT)
    assert (tmp_path / "made.txt").read_text() == "made-by-tool\n"

    cli.send_line("/cost")
    totals = cli.expect(PROMPT)
    assert "turns     1" in totals
    assert "20 in · 10 out" in totals  # two scripted responses of 10 in / 5 out
    assert "cost      $" in totals
    cli.send_line("/exit")
    assert cli.wait() == 0


def test_always_approves_the_tool_for_the_rest_of_the_session(
    tmp_path: Path, start_cli: StartCli
) -> None:
    model = write_script(
        tmp_path / "s.yaml",
        [bash_step("touch one.txt"), bash_step("touch two.txt"), {"text": "both made"}],
    )
    cli = start_cli("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("make two files")
    cli.expect(ASK)
    cli.send_line("a")
    after_always = cli.expect("both made")
    cli.expect(PROMPT)
    assert "Bash(touch two.txt)" in after_always and ASK not in after_always
    assert (tmp_path / "one.txt").exists() and (tmp_path / "two.txt").exists()
    cli.send_line("/exit")
    assert cli.wait() == 0


def test_no_denies_the_call_and_the_model_is_told(tmp_path: Path, start_cli: StartCli) -> None:
    model = write_script(
        tmp_path / "s.yaml", [bash_step("touch nope.txt"), {"text": "understood, not doing it"}]
    )
    cli = start_cli("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("make a file")
    cli.expect(ASK)
    cli.send_line("n")
    cli.expect("declined this tool call")
    cli.expect("understood, not doing it")
    cli.expect(PROMPT)
    assert not (tmp_path / "nope.txt").exists()
    cli.send_bytes(b"\x04")  # Ctrl-D at the prompt ends the session
    assert cli.wait() == 0


def test_ctrl_c_interrupts_a_running_response_and_the_session_goes_on(
    tmp_path: Path, start_cli: StartCli
) -> None:
    model = write_script(
        tmp_path / "s.yaml", [bash_step("sleep 60"), {"text": "answer after the interrupt"}]
    )
    cli = start_cli(
        "--model", model, "--tools", "Bash", "--permission-mode", "bypassPermissions", cwd=tmp_path
    )
    cli.expect(PROMPT)
    cli.send_line("wait a minute")
    cli.expect("running Bash…")
    cli.send_bytes(b"\x03")
    cli.expect("interrupting…")
    cli.expect("interrupted")
    cli.expect(PROMPT, timeout=30)  # long before the 60 s command would have ended
    cli.send_line("and now?")
    cli.expect("answer after the interrupt")
    cli.expect(PROMPT)
    cli.wait_until_reading_keys()
    cli.send_bytes(b"\x03")  # Ctrl-C at the prompt ends the session
    assert cli.wait() == 0


def test_model_switches_and_compact_goes_to_the_loop(tmp_path: Path, start_cli: StartCli) -> None:
    first = write_script(tmp_path / "first.yaml", [{"text": "from the first model"}])
    second = write_script(
        tmp_path / "second.yaml",
        [{"text": "Summary: a greeting."}, {"text": "from the second model"}],
    )
    cli = start_cli("--model", first, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("hello")
    cli.expect("from the first model")
    cli.expect(PROMPT)
    cli.send_line(f"/model {second}")
    cli.expect("model: scripted")
    cli.expect(PROMPT)
    cli.send_line("/compact keep the greeting")
    cli.expect("conversation compacted")
    cli.expect(PROMPT)
    cli.send_line("again")
    cli.expect("from the second model")
    cli.expect(PROMPT)
    cli.send_line("/model not-a-provider:x")
    cli.expect("cannot tell which provider")
    cli.expect(PROMPT)
    cli.send_line("/nonsense")
    cli.expect("unknown command /nonsense")
    cli.expect(PROMPT)
    cli.send_line("/exit")
    assert cli.wait() == 0


def test_a_prompt_argument_starts_the_session_and_ctrl_c_at_a_question_stops_the_response(
    tmp_path: Path, start_cli: StartCli
) -> None:
    model = write_script(
        tmp_path / "s.yaml", [bash_step("touch never.txt"), {"text": "next answer"}]
    )
    cli = start_cli("make a file", "--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect("> make a file")
    cli.expect(ASK)
    cli.wait_until_reading_keys()
    cli.send_bytes(b"\x03")
    cli.expect("interrupting…")
    cli.expect("The user declined this tool call")
    cli.expect("interrupted: interrupted by the user")
    cli.expect(PROMPT)
    assert not (tmp_path / "never.txt").exists()
    cli.send_line("go on")
    cli.expect("next answer")
    cli.expect(PROMPT)
    cli.send_line("/exit")
    assert cli.wait() == 0


def test_an_output_format_for_print_mode_is_refused_on_a_terminal(
    tmp_path: Path, start_cli: StartCli
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "unused"}])
    cli = start_cli("--output-format", "json", "--model", model, cwd=tmp_path)
    assert cli.wait() == 2
    said = " ".join(cli.seen.split())
    assert "--output-format json is for print mode" in said


def _prompts_in_transcripts(home: Path) -> list[str]:
    prompts: list[str] = []
    for transcript in sorted((home / "projects").glob("*/*.jsonl")):
        for line in transcript.read_text().splitlines():
            message = json.loads(line).get("payload", {})
            if message.get("type") == "user" and isinstance(message.get("content"), str):
                prompts.append(message["content"])
    return prompts


def test_always_is_scoped_to_the_command_prefix(tmp_path: Path, start_cli: StartCli) -> None:
    model = write_script(
        tmp_path / "s.yaml",
        [
            bash_step("touch a.txt"),
            bash_step("touch b.txt"),
            bash_step("rm a.txt"),
            {"text": "done"},
        ],
    )
    cli = start_cli("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("make files, then remove one")
    cli.expect("[a]lways allow Bash(touch *) (saved to .loopwright/settings.local.json): ")
    cli.send_line("a")
    cli.expect("? allow Bash(rm a.txt)")  # touch b.txt went through; rm is asked about
    cli.expect("[a]lways allow Bash(rm *) (saved to .loopwright/settings.local.json): ")
    cli.send_line("n")
    cli.expect("done")
    cli.expect(PROMPT)
    assert (tmp_path / "a.txt").exists() and (tmp_path / "b.txt").exists()
    cli.send_line("/exit")
    assert cli.wait() == 0


def test_history_is_kept_across_sessions(
    tmp_path: Path, start_cli: StartCli, isolated_loopwright_home: Path
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "first answer"}])
    first = start_cli("--model", model, cwd=tmp_path)
    first.expect(PROMPT)
    first.send_line("remember this prompt")
    first.expect("first answer")
    first.expect(PROMPT)
    first.send_line("/exit")
    assert first.wait() == 0
    assert "remember this prompt" in (isolated_loopwright_home / "repl_history").read_text()

    again = write_script(tmp_path / "again.yaml", [{"text": "second answer"}])
    second = start_cli("--model", again, cwd=tmp_path)
    second.expect(PROMPT)
    # Up twice: past the previous session's /exit to its prompt (the screen shows only
    # what changed, so the recalled text is checked in the transcript below).
    second.send_bytes(b"\x1b[A\x1b[A\r")
    second.expect("second answer")
    second.expect(PROMPT)
    second.send_line("/exit")
    assert second.wait() == 0
    assert _prompts_in_transcripts(isolated_loopwright_home).count("remember this prompt") == 2


def test_a_trailing_backslash_or_alt_enter_continues_the_prompt(
    tmp_path: Path, start_cli: StartCli, isolated_loopwright_home: Path
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "got three lines"}])
    cli = start_cli("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_bytes(b"line one\\\r")
    cli.send_bytes(b"line two\x1b\r")  # Alt-Enter arrives as Esc then Enter
    cli.send_line("line three")
    cli.expect("got three lines")
    cli.expect(PROMPT)
    cli.send_line("/exit")
    assert cli.wait() == 0
    assert "line one\nline two\nline three" in _prompts_in_transcripts(isolated_loopwright_home)


def test_tab_completes_a_slash_command(tmp_path: Path, start_cli: StartCli) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "unused"}])
    cli = start_cli("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_bytes(b"/he\t")
    cli.expect("/help")
    cli.send_bytes(b"\r")
    cli.expect("Tab completes a /command")
    cli.expect(PROMPT)
    cli.send_line("/exit")
    assert cli.wait() == 0
