"""The REPL's pieces on their own: previews, the local rules file, answers, the picker."""

import json
import stat
from pathlib import Path

import pytest

from loopwright.cli.permission_prompt import parse_choice
from loopwright.cli.repl_info import init_target
from loopwright.cli.repl_local_rules import add_allow_rules, local_settings_path
from loopwright.cli.repl_preview import preview_lines
from loopwright.cli.repl_questions import parse_answer
from loopwright.cli.repl_resume import PastSession, age, choose, picker_lines
from loopwright.cli.repl_trust import remember_trust, trusted_folders
from loopwright.errors import ConfigurationError

QUESTION = {
    "question": "Which?",
    "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}],
}


def test_a_carriage_return_in_a_new_file_is_shown_inside_its_line_not_as_a_break(
    tmp_path: Path,
) -> None:
    lines = preview_lines(
        "Write", {"file_path": str(tmp_path / "x.sh"), "content": "safe\rrm -rf ~\n"}, ""
    )
    assert any("safe\\rrm -rf ~" in line for line in lines)
    assert "(1 lines)" in lines[0]


def test_an_edit_whose_text_is_not_in_the_file_shows_both_strings_and_says_so(
    tmp_path: Path,
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("hello\n")
    lines = preview_lines(
        "Edit", {"file_path": str(target), "old_string": "absent", "new_string": "x"}, ""
    )
    assert "not in the file" in lines[0]
    assert any("-absent" in line for line in lines) and any("+x" in line for line in lines)


def test_local_rules_merge_into_the_file_and_a_broken_file_is_refused_with_advice(
    tmp_path: Path,
) -> None:
    path = local_settings_path(tmp_path)
    assert path == tmp_path / ".loopwright" / "settings.local.json"
    assert add_allow_rules(path, ["Bash(ls *)"]) == ["Bash(ls *)"]
    assert add_allow_rules(path, ["Bash(ls *)", "Read"]) == ["Read"]
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["Bash(ls *)", "Read"]}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("{oops")
    with pytest.raises(ConfigurationError, match=r"is not valid JSON .*fix or remove it"):
        add_allow_rules(path, ["Read"])
    assert path.read_text() == "{oops"  # left as it was


def test_a_project_with_claude_md_gets_its_rules_in_dot_claude(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# x\n")
    assert local_settings_path(tmp_path) == tmp_path / ".claude" / "settings.local.json"


def test_single_keys_and_numbers_map_to_choices_and_anything_else_waits() -> None:
    assert [parse_choice(k) for k in ("y", "a", "n", "t", "\x1b", "\r")] == [
        "yes",
        "always",
        "no",
        "tell",
        "no",
        "no",
    ]
    assert parse_choice("x") is None


def test_answers_are_labels_for_numbers_and_words_otherwise() -> None:
    assert parse_answer(QUESTION, "2") == "b"
    assert parse_answer({**QUESTION, "multiSelect": True}, "2, 1") == ["b", "a"]
    assert parse_answer(QUESTION, "3") == "3"  # no option 3: taken as the person's words
    assert parse_answer(QUESTION, "neither, thanks") == "neither, thanks"


def test_the_picker_shows_prompt_age_and_cost_and_chooses_by_number() -> None:
    sessions = [
        PastSession("s-1", "fix the \x1b[2K tests", 1000.0, 0.25),
        PastSession("s-2", "", 1000.0 - 7200, None),
    ]
    lines = picker_lines(sessions, now=1060.0)
    assert "fix the \\e[2K tests" in lines[0] and "1 min ago · $0.2500" in lines[0]
    assert "(no prompt)" in lines[1] and "2 h ago · $?" in lines[1]
    assert choose(sessions, "2") is sessions[1]
    assert choose(sessions, "3") is None and choose(sessions, "") is None
    assert age(5) == "just now" and age(3 * 86400) == "3 d ago"


def test_trust_is_remembered_once_per_folder_and_an_unreadable_file_trusts_nothing(
    tmp_path: Path,
) -> None:
    where = tmp_path / "home" / "trusted_folders.json"
    remember_trust(tmp_path / "a", where)
    remember_trust(tmp_path / "a", where)
    assert trusted_folders(where) == [str(tmp_path / "a")]
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    where.write_text("not json")
    assert trusted_folders(where) == []


def test_init_writes_claude_md_in_a_claude_project_and_names_an_existing_memory_file(
    tmp_path: Path,
) -> None:
    (tmp_path / ".claude").mkdir()
    assert init_target(str(tmp_path)) == tmp_path / "CLAUDE.md"
    (tmp_path / "AGENTS.md").write_text("# mine\n")
    assert init_target(str(tmp_path)) == tmp_path / "AGENTS.md"  # /init says it exists
