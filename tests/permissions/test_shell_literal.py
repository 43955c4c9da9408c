"""Which shell words bash passes on exactly as written (the analyser's notion of literal)."""

from __future__ import annotations

import pytest

from loopwright.permissions.shell.literal import harmless_assignment, word_kind


@pytest.mark.parametrize(
    "word",
    [
        "plain",
        "'$(id)'",
        "\\$HOME",
        '"quoted text"',
        "a=b",
        "~",
        "~/notes",
        "{}",
        "[",
        "x$",
        '"$"',
        "--flag=value",
        "a=~/x",
    ],
)
def test_words_bash_passes_unchanged_are_literal(word: str) -> None:
    assert word_kind(word) == "literal"


@pytest.mark.parametrize(
    "word",
    [
        "$x",
        "${x}",
        "${x@P}",
        "${!x}",
        "${a[0]}",
        "${x:1:2}",
        "$((1+2))",
        "$[1+2]",
        "`id`",
        "$(id)",
        '"$x"',
        '"`id`"',
        "$'\\x41'",
        '$"text"',
        "{a,b}",
        "a{1..3}",
        "~root",
        "~+",
        "~-",
        "a=~root/x",
        "PATH=x:~other",
        "*.py",
        "?x",
        "[ab]c",
        "-*",
        "@(a|b)",
    ],
)
def test_words_the_shell_expands_are_not_literal(word: str) -> None:
    assert word_kind(word) == "expanding"


@pytest.mark.parametrize("word", ["src/*.py", "./*", "docs/?.md", "a[12].txt", "x*"])
def test_globs_behind_a_literal_prefix_cannot_become_options(word: str) -> None:
    assert word_kind(word) == "glob"


@pytest.mark.parametrize("text", ["LANG=C", "NODE_ENV=production", "CI=1", "NO_COLOR=1"])
def test_harmless_assignments_with_plain_values(text: str) -> None:
    assert harmless_assignment(text)


@pytest.mark.parametrize(
    "text",
    [
        "PATH=/usr/bin",
        "HOME=/tmp",
        "CDPATH=.",
        "GIT_DIR=x",
        "LANG=/tmp/locale",
        "LANG=$(id)",
        "LC_ALL=${x@P}",
        "IFS=/",
        "BASH_ENV=x",
        "LOOPWRIGHT_CWD_FILE=/etc/x",
        "NODE_ENV+=x",
        "a[$(id)]=1",
        "LANG=~root",
    ],
)
def test_other_assignments_are_not_harmless(text: str) -> None:
    assert not harmless_assignment(text)
