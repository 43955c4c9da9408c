"""The REPL as a Claude Code user drives it, on a real pseudo-terminal: keys in, screen out.

Each test's terminal is also kept as an asciinema v2 recording (``asciinema play FILE``)
under ``$LOOPWRIGHT_ARTIFACTS/repl-casts`` (.ci/run keeps test-artifacts/), else under
the test's temporary directory.
"""

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loopwright import Options, run
from loopwright.testing import ScriptedModel, text

from .conftest import PtySession
from .test_repl import PROMPT, bash_step, write_script

REPO = Path(__file__).resolve().parents[2]
DEMO_SERVER = REPO / "tests" / "fixtures" / "mcp_servers" / "demo_server.py"
KEYS = "[a]lways allow "  # the last of the single-key choices: the REPL waits for a key
StartCli = Callable[..., PtySession]


@pytest.fixture
def cli_session(
    start_cli: Callable[..., PtySession], request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[StartCli]:
    """``start_cli``, and every terminal it opened saved as a .cast recording."""
    opened: list[PtySession] = []

    def start(*args: str, cwd: Path) -> PtySession:
        session = start_cli(*args, cwd=cwd)
        opened.append(session)
        return session

    yield start
    artifacts = os.environ.get("LOOPWRIGHT_ARTIFACTS")
    where = Path(artifacts) / "repl-casts" if artifacts else tmp_path / "casts"
    for number, session in enumerate(opened, start=1):
        name = f"{request.node.name}-{number}.cast"
        session.write_cast(where / name, f"loopwright REPL: {request.node.name}")


def edit_step(path: Path, old: str, new: str) -> dict[str, object]:
    call = {"file_path": str(path), "old_string": old, "new_string": new}
    return {"tool_call": {"name": "Edit", "input": call}}


def write_step(path: Path, content: str) -> dict[str, object]:
    return {"tool_call": {"name": "Write", "input": {"file_path": str(path), "content": content}}}


def raw_screen(cli: PtySession) -> str:
    return "".join(chunk for _, chunk in cli.received)


def leave(cli: PtySession) -> None:
    cli.expect(PROMPT)
    cli.send_line("/exit")
    assert cli.wait() == 0


# ---------------------------------------------------------------- 1. permission prompts


def test_an_edit_prompt_shows_a_coloured_diff_in_the_file_context_and_y_needs_no_enter(
    tmp_path: Path, cli_session: StartCli
) -> None:
    source = tmp_path / "calc.py"
    source.write_text("def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    model = write_script(
        tmp_path / "s.yaml",
        [
            {"tool_call": {"name": "Read", "input": {"file_path": str(source)}}},
            edit_step(source, "    return 1\n", "    return 100\n"),
            {"text": "edited"},
        ],
    )
    cli = cli_session("--model", model, "--tools", "Read,Edit", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("make one return 100")
    cli.expect(f"? allow Edit({source})")
    shown = cli.expect(KEYS)
    assert "def one():" in shown  # the lines around the change
    assert "-    return 1" in shown and "+    return 100" in shown
    assert "\x1b[31m-    return 1" in raw_screen(cli)  # removed in red
    assert "\x1b[32m+    return 100" in raw_screen(cli)  # added in green
    cli.send_bytes(b"y")  # one key, no Enter
    cli.expect("⎿ ")
    cli.expect("edited")
    leave(cli)
    assert "return 100" in source.read_text()


def test_a_write_prompt_shows_a_new_file_whole_and_a_diff_over_an_existing_one(
    tmp_path: Path, cli_session: StartCli
) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("keep this\nold line\n")
    fresh = "\n".join(f"line {n}" for n in range(1, 81)) + "\nTHE LAST LINE \x1b[2K"
    model = write_script(
        tmp_path / "s.yaml",
        [
            write_step(tmp_path / "new.txt", fresh),
            {"tool_call": {"name": "Read", "input": {"file_path": str(existing)}}},
            write_step(existing, "keep this\nnew line\n"),
            {"text": "both asked"},
        ],
    )
    cli = cli_session("--model", model, "--tools", "Read,Write", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("write two files")
    cli.expect(f"new file {tmp_path / 'new.txt'} (81 lines)")
    shown = cli.expect(KEYS)
    # Whole, to its last line, and the escape in it shown instead of obeyed.
    assert "+ line 1\n" in shown and "+ line 80" in shown
    assert "+ THE LAST LINE \\e[2K" in shown
    cli.send_bytes(b"n")
    cli.expect(f"? allow Write({existing})")
    diff = cli.expect(KEYS)
    assert " keep this" in diff and "-old line" in diff and "+new line" in diff
    cli.send_bytes(b"y")
    cli.expect("both asked")
    leave(cli)
    assert not (tmp_path / "new.txt").exists()
    assert existing.read_text() == "keep this\nnew line\n"


def test_a_bash_prompt_shows_the_whole_command_and_its_directory_and_t_tells_the_model_why(
    tmp_path: Path, cli_session: StartCli
) -> None:
    command = "rm -rf build && \\\n  make all"
    model = write_script(tmp_path / "s.yaml", [bash_step(command), {"text": "ok, another way"}])
    cli = cli_session("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("rebuild")
    shown = cli.expect(KEYS)
    assert f"in {tmp_path}" in shown
    assert "$ rm -rf build && \\" in shown and "$   make all" in shown
    cli.send_bytes(b"t")
    cli.expect("what should it do instead? ")
    cli.send_line("keep the build dir, run make clean")
    cli.expect("said what to do instead: keep the build dir, run make clean")
    cli.expect("ok, another way")
    leave(cli)


def test_always_shows_the_rule_writes_it_to_local_settings_and_the_next_session_uses_it(
    tmp_path: Path, cli_session: StartCli
) -> None:
    (tmp_path / ".claude").mkdir()
    local = tmp_path / ".claude" / "settings.local.json"
    local.write_text(
        json.dumps({"permissions": {"deny": ["WebFetch"], "ask": ["Bash(git push *)"]}})
    )
    model = write_script(tmp_path / "s.yaml", [bash_step("touch one.txt"), {"text": "made"}])
    cli = cli_session("--model", model, "--tools", "Bash", cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("make a file")
    cli.expect("[a]lways allow Bash(touch *) (saved to .claude/settings.local.json): ")
    cli.send_bytes(b"a")
    cli.expect(f"added Bash(touch *) to {local}")
    cli.expect("made")
    leave(cli)
    saved = json.loads(local.read_text())
    assert saved == {
        "permissions": {
            "deny": ["WebFetch"],
            "ask": ["Bash(git push *)"],
            "allow": ["Bash(touch *)"],
        }
    }
    assert stat.S_IMODE(local.stat().st_mode) == 0o600

    again = write_script(tmp_path / "again.yaml", [bash_step("touch two.txt"), {"text": "again"}])
    second = cli_session("--model", again, "--tools", "Bash", cwd=tmp_path)
    second.expect("allows: Bash(touch *)")  # the checkout now grants something: asked once
    second.send_bytes(b"y")
    second.expect(PROMPT)
    second.send_line("make another")
    after = second.expect("again")
    assert KEYS not in after and (tmp_path / "two.txt").exists()
    leave(second)


# ---------------------------------------------------------------- 2. AskUserQuestion


def test_the_model_s_questions_are_answered_at_the_terminal_by_number_and_in_words(
    tmp_path: Path, cli_session: StartCli
) -> None:
    questions = [
        {
            "question": "Which database?",
            "header": "Storage",
            "options": [
                {"label": "SQLite", "description": "one file"},
                {"label": "Postgres", "description": "a server"},
            ],
        },
        {
            "question": "Which extras?",
            "multiSelect": True,
            "options": [
                {"label": "docs", "description": ""},
                {"label": "tests", "description": ""},
                {"label": "ci", "description": ""},
            ],
        },
        {
            "question": "Anything else?",
            "options": [{"label": "no", "description": ""}, {"label": "yes", "description": ""}],
        },
    ]
    steps = [
        {"tool_call": {"name": "AskUserQuestion", "input": {"questions": questions}}},
        {"text": "thanks for the answers"},
    ]
    model = write_script(tmp_path / "s.yaml", steps)
    cli = cli_session(
        "--model",
        model,
        "--tools",
        "AskUserQuestion",
        "--allowed-tools",
        "AskUserQuestion",
        cwd=tmp_path,
    )
    cli.expect(PROMPT)
    cli.send_line("set it up")
    cli.expect("? Storage · Which database?")
    cli.expect("2. Postgres — a server")
    cli.expect("answer: ")
    cli.send_line("2")
    cli.expect("type numbers (e.g. 1 3)")
    cli.expect("answer: ")
    cli.send_line("1 3")
    cli.expect("answer: ")
    cli.send_line("use uv, not pip")
    cli.expect('"Which database?" → Postgres')
    cli.expect('"Which extras?" → docs, ci')
    cli.expect('"Anything else?" → use uv, not pip')
    cli.expect("thanks for the answers")
    leave(cli)


# ---------------------------------------------------------------- 3. keys


def _prompts_sent_in(transcript: Path) -> list[str]:
    prompts: list[str] = []
    for line in transcript.read_text().splitlines():
        payload = json.loads(line).get("payload", {})
        if payload.get("type") == "user" and isinstance(payload.get("content"), str):
            prompts.append(payload["content"])
    return prompts


def _prompts_sent(home: Path) -> list[str]:
    transcripts = sorted((home / "projects").glob("*/*.jsonl"))
    return [prompt for path in transcripts for prompt in _prompts_sent_in(path)]


def test_ctrl_c_clears_a_half_typed_line_and_a_second_on_the_empty_line_leaves(
    tmp_path: Path, cli_session: StartCli, isolated_loopwright_home: Path
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "answered"}])
    cli = cli_session("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_bytes(b"half a thought")
    cli.expect("half a thought")
    cli.send_bytes(b"\x03")  # clears the line; the session goes on
    cli.send_line("the real prompt")
    cli.expect("answered")
    cli.expect(PROMPT)
    cli.send_bytes(b"\x03")  # on an empty line: leave
    assert cli.wait() == 0
    assert _prompts_sent(isolated_loopwright_home) == ["the real prompt"]


def test_ctrl_d_on_an_empty_line_leaves(tmp_path: Path, cli_session: StartCli) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "unused"}])
    cli = cli_session("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_bytes(b"\x04")
    assert cli.wait() == 0


def test_esc_interrupts_the_running_turn_and_the_session_goes_on(
    tmp_path: Path, cli_session: StartCli
) -> None:
    model = write_script(
        tmp_path / "s.yaml", [bash_step("sleep 60"), {"text": "answer after the interrupt"}]
    )
    cli = cli_session(
        "--model", model, "--tools", "Bash", "--permission-mode", "bypassPermissions", cwd=tmp_path
    )
    cli.expect(PROMPT)
    cli.send_line("wait a minute")
    cli.expect("running Bash…")
    cli.send_bytes(b"\x1b")
    cli.expect("interrupting…")
    cli.expect("interrupted")
    cli.expect(PROMPT, timeout=30)  # long before the 60 s command would end
    cli.send_line("and now?")
    cli.expect("answer after the interrupt")
    leave(cli)


# ---------------------------------------------------------------- 4. resume


async def _past_session(cwd: Path, prompts: list[str], session_id: str) -> None:
    for number, prompt in enumerate(prompts):
        model = ScriptedModel([text(f"answer {number + 1}")])
        options = Options(
            model=model,
            cwd=cwd,
            setting_sources=[],
            session_id=None if number else session_id,
            resume=session_id if number else None,
        )
        await run(prompt, options)


@pytest.mark.asyncio
async def test_resume_shows_the_conversation_so_far_and_only_its_tail_when_long(
    tmp_path: Path, cli_session: StartCli
) -> None:
    session_id = "0b5e0000-0000-4000-8000-000000000001"
    await _past_session(tmp_path, [f"question {n}" for n in range(1, 11)], session_id)
    model = write_script(tmp_path / "s.yaml", [{"text": "continuing"}])
    cli = cli_session("--model", model, "--resume", session_id[:8], cwd=tmp_path)
    cli.expect(f"resumed session {session_id}")
    cli.expect("8 earlier message(s) not shown")
    earlier = cli.expect("end of the earlier conversation")
    assert "> question 10" in earlier and "answer 10" in earlier and "> question 5\n" in earlier
    assert "> question 4\n" not in earlier and "answer 4\n" not in earlier
    cli.expect(PROMPT)
    cli.send_line("go on")
    cli.expect("continuing")
    leave(cli)


@pytest.mark.asyncio
async def test_resume_without_an_id_and_slash_resume_open_a_picker_of_this_folder(
    tmp_path: Path, cli_session: StartCli
) -> None:
    older, newer = (
        "0b5e0000-0000-4000-8000-00000000000a",
        "0b5e0000-0000-4000-8000-00000000000b",
    )
    await _past_session(tmp_path, ["the older session's prompt"], older)
    await _past_session(tmp_path, ["the newer session's prompt"], newer)
    model = write_script(tmp_path / "s.yaml", [{"text": "back in"}])
    cli = cli_session("--model", model, "--resume", cwd=tmp_path)
    cli.expect("resume which session?")
    listed = cli.expect("number (Enter alone: a new session): ")
    assert "1. the newer session's prompt" in listed and "2. the older session's prompt" in listed
    assert "just now · $" in listed
    cli.send_line("2")
    cli.expect(f"resumed session {older}")
    cli.expect("> the older session's prompt")
    cli.expect(PROMPT)
    cli.send_line("/resume")
    picked = cli.expect("number (Enter alone: a new session): ")
    assert "the newer session's prompt" in picked and older not in picked  # not this one
    cli.send_line("1")
    cli.expect(f"resumed session {newer}")
    cli.expect("answer 1")
    leave(cli)


def test_resume_without_an_id_in_print_mode_says_to_give_one(tmp_path: Path) -> None:
    from .test_cli import run_cli

    done = run_cli("-p", "hi", "--resume", "--model", "test", cwd=tmp_path)
    assert done.returncode == 2
    assert "give the id (or a unique prefix): --resume ID" in done.stderr


# ---------------------------------------------------------------- 5. slash commands


def test_clear_starts_a_new_conversation(
    tmp_path: Path, cli_session: StartCli, isolated_loopwright_home: Path
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "an answer"}])
    cli = cli_session("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("one")
    cli.expect("an answer")
    cli.expect(PROMPT)
    cli.send_line("/clear")
    cli.expect("new conversation · session ")
    cli.expect("stays resumable")
    cli.expect(PROMPT)
    cli.send_line("two")
    cli.expect("an answer")
    leave(cli)
    transcripts = sorted((isolated_loopwright_home / "projects").glob("*/*.jsonl"))
    prompts = [_prompts_sent_in(path) for path in transcripts]
    assert sorted(prompts) == [["one"], ["two"]]  # two sessions, one prompt each


def test_permissions_lists_the_rules_in_force_and_what_always_allowed(
    tmp_path: Path, cli_session: StartCli
) -> None:
    model = write_script(tmp_path / "s.yaml", [bash_step("touch x.txt"), {"text": "made"}])
    cli = cli_session(
        "--model",
        model,
        "--tools",
        "Bash,Read",
        "--allowed-tools",
        "Read",
        "--disallowed-tools",
        "Bash(curl *)",
        cwd=tmp_path,
    )
    cli.expect(PROMPT)
    cli.send_line("make x")
    cli.expect(KEYS)
    cli.send_bytes(b"a")
    cli.expect("made")
    cli.expect(PROMPT)
    cli.send_line("/permissions")
    listed = cli.expect(PROMPT)
    assert "mode: default" in listed
    assert "Read (options)" in listed and "Bash(curl *) (options)" in listed
    assert "always allowed in this session" in listed and "Bash(touch *)" in listed
    cli.send_line("/exit")
    assert cli.wait() == 0


def _trusting_checkout(root: Path) -> None:
    """A checkout with an MCP server, a subagent, a memory file."""
    mcp = {"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO_SERVER)]}}}
    (root / ".mcp.json").write_text(json.dumps(mcp))
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\ndescription: reviews diffs\n---\nReview.")
    (root / "AGENTS.md").write_text("# Project\nUse tabs.\n")


def test_mcp_agents_memory_status_and_help_describe_the_session(
    tmp_path: Path, cli_session: StartCli
) -> None:
    _trusting_checkout(tmp_path)
    model = write_script(tmp_path / "s.yaml", [{"text": "unused"}])
    cli = cli_session("--model", model, cwd=tmp_path)
    cli.expect("Do you trust the files in")
    cli.expect("starts MCP servers: demo")
    cli.send_bytes(b"y")
    cli.expect(PROMPT, timeout=90)  # the MCP server starts
    cli.send_line("/mcp")
    cli.expect("demo: connected")
    cli.expect(PROMPT)
    cli.send_line("/agents")
    cli.expect("reviewer")
    cli.expect(PROMPT)
    cli.send_line("/memory")
    cli.expect(str(tmp_path / "AGENTS.md"))
    cli.expect(PROMPT)
    cli.send_line("/status")
    status = cli.expect(PROMPT)
    assert "checkout     trusted" in status and "MCP servers 1" in status
    cli.send_line("/help memory")
    cli.expect("the memory files read into the system prompt")
    cli.expect(PROMPT)
    cli.send_line("/help nothing")
    cli.expect("no command /nothing")
    cli.expect(PROMPT)
    cli.send_line("/help")
    cli.expect("/permissions      the permission rules in force")
    leave(cli)


def test_init_asks_then_writes_a_starter_agents_md_and_never_overwrites(
    tmp_path: Path, cli_session: StartCli
) -> None:
    model = write_script(tmp_path / "s.yaml", [{"text": "unused"}])
    cli = cli_session("--model", model, cwd=tmp_path)
    cli.expect(PROMPT)
    cli.send_line("/init")
    cli.expect(f"write a starter {tmp_path / 'AGENTS.md'}? [y/n]")
    cli.send_bytes(b"n")
    cli.expect("nothing written")
    assert not (tmp_path / "AGENTS.md").exists()
    cli.expect(PROMPT)
    cli.send_line("/init")
    cli.expect("[y/n]")
    cli.send_bytes(b"y")
    cli.expect("wrote ")
    assert "## Build and test" in (tmp_path / "AGENTS.md").read_text()
    cli.expect(PROMPT)
    cli.send_line("/init")
    cli.expect("exists already")
    leave(cli)


# ---------------------------------------------------------------- 6. trust


def _checkout_with_a_hook(root: Path) -> Path:
    marker = root / "hook-ran"
    hook = {"hooks": [{"type": "command", "command": f"touch {marker}"}]}
    settings = {"hooks": {"SessionStart": [hook]}, "permissions": {"allow": ["Bash(*)"]}}
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return marker


def test_a_checkout_is_trusted_once_per_folder_before_its_hooks_run(
    tmp_path: Path, cli_session: StartCli, isolated_loopwright_home: Path
) -> None:
    marker = _checkout_with_a_hook(tmp_path)
    model = write_script(tmp_path / "s.yaml", [{"text": "hello"}] * 3)
    refused = cli_session("--model", model, cwd=tmp_path)
    refused.expect(f"Do you trust the files in {tmp_path}?")
    refused.expect(f"runs hooks: SessionStart: touch {marker}")
    refused.expect("allows: Bash(*)")
    refused.send_bytes(b"n")
    refused.expect("not trusted")
    refused.expect(PROMPT)
    refused.send_line("hi")
    refused.expect("hello")
    refused.expect(PROMPT)
    refused.send_line("/status")
    refused.expect("not trusted (only its restrictions)")
    leave(refused)
    assert not marker.exists()

    trusted = cli_session("--model", model, cwd=tmp_path)
    trusted.expect("Do you trust the files in")  # no is not remembered: asked again
    trusted.send_bytes(b"y")
    trusted.expect("not asked again for this folder")
    trusted.expect(PROMPT)
    trusted.send_line("hi")
    trusted.expect("hello")
    leave(trusted)
    assert marker.exists()
    remembered = isolated_loopwright_home / "trusted_folders.json"
    assert json.loads(remembered.read_text()) == {"folders": [str(tmp_path)]}
    assert stat.S_IMODE(remembered.stat().st_mode) == 0o600

    marker.unlink()
    third = cli_session("--model", model, cwd=tmp_path)
    greeting = third.expect(PROMPT)
    assert "Do you trust" not in greeting
    third.send_line("hi")
    third.expect("hello")
    leave(third)
    assert marker.exists()


def test_print_mode_never_asks_about_trust(tmp_path: Path) -> None:
    from .test_cli import run_cli

    marker = _checkout_with_a_hook(tmp_path)
    done = run_cli("-p", "hi", "--model", "test", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert marker.exists() and "trust" not in done.stdout.lower()
