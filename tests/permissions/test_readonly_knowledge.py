"""Read-only by positive knowledge: options resolved as the program resolves them."""

from __future__ import annotations

import pytest

from loopwright.permissions.shell.readonly_use import read_only_use


@pytest.mark.parametrize(
    "command",
    [
        "ls -la src",
        "ls --color=auto -R",
        "head -n5 a.txt",
        "head -5 a.txt",
        "tail -n +3 a.txt",
        "sort -k2,2 -t: a.txt",
        "sort -rn a.txt",
        "grep -rn pattern src",
        "grep -e a -e b a.txt",
        "rg -i --type py pattern",
        "find . -name '*.py' -type f -maxdepth 2",
        "git status --short",
        "git log --oneline -n 5",
        "git diff --stat HEAD~1",
        "git branch -a",
        "date +%Y-%m-%d",
        "wc -l a.txt b.txt",
        "cut -d: -f1 a.txt",
        "[ -f a.txt ]",
        "test a = b",
        "echo anything -goes --here",
    ],
)
def test_known_options_are_read_only(command: str) -> None:
    assert read_only_use(command.split()) is not None


@pytest.mark.parametrize(
    "command",
    [
        "sort --out=x a.txt",  # an abbreviation GNU would take for --output
        "sort --output=x a.txt",
        "sort -o x a.txt",
        "sort -ruo x a.txt",  # -o inside a cluster
        "sort --compress-program=sh a.txt",
        "sort -T /tmp a.txt",
        "ls --frobnicate",
        "grep -R x .",
        "grep -f - a.txt",  # patterns from stdin
        "rg --pre sh x",
        "rg -z x",
        "rg --follow x",
        "find . -exec rm {} ;",
        "find . -delete",
        "find . -fprint out",
        "find . -newer",  # a primary without its value
        "date -s 2020-01-01",
        "date 010100002020",
        "tree -o out.txt",
        "file -z a.gz",
        "uniq in.txt out.txt",
        "test -v x",
        "[ -f a.txt",
        "git -c core.pager=sh log",
        "git -C /tmp status",
        "git log --output=x",
        "git log --show-signature",
        "git diff --no-index a b",
        "git diff --ext-diff",
        "git blame --contents x y",
        "git branch new-branch",
        "git remote add x y",
        "git push",
        "wc --files0-from=list",
        "cat --files0-from=list",
    ],
)
def test_anything_not_known_read_only_is_not(command: str) -> None:
    assert read_only_use(command.split()) is None


def test_files_named_by_options_and_revisions_are_content_reads() -> None:
    grep = read_only_use(["grep", "-f", "patterns.txt", "a.txt"])
    show = read_only_use(["git", "show", "HEAD:secrets/key"])
    date = read_only_use(["date", "--file=dates.txt"])
    assert grep is not None and set(grep.content) == {"patterns.txt", "a.txt"}
    assert show is not None and show.content == ("secrets/key",) and show.repository
    assert date is not None and date.content == ("dates.txt",)


def test_recursive_readers_report_the_trees_they_walk() -> None:
    grep = read_only_use(["grep", "-r", "x"])
    rg = read_only_use(["rg", "x", "src", "docs"])
    plain = read_only_use(["grep", "x", "a.txt"])
    assert grep is not None and grep.trees == (".",)
    assert rg is not None and rg.trees == ("src", "docs")
    assert plain is not None and plain.trees == () and plain.content == ("a.txt",)
