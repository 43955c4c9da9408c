"""Read deny rules against everything a command may read: files, trees and repositories.

A command that walks a tree (``grep -r``, ``rg``, ``git diff``) prints the contents of
files it finds on the way, so naming only ``.`` must not get around ``Read(./secrets/**)``.
Whether a rule *could* match something under a tree is decided from the rule alone — its
anchor plus the literal directories before its first wildcard — so no walk of the tree
is needed and a file created a moment later is covered too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from loopwright.permissions.paths.patterns import (
    is_inside,
    rule_matches_path,
    rule_root,
    spell,
    tree_has,
)
from loopwright.permissions.rules import PermissionRule
from loopwright.permissions.shell.readonly_use import ReadOnlyUse, read_only_use
from loopwright.permissions.shell.results import SimpleCommand

_TREE_READERS = frozenset(
    {
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "git",
        "find",
        "tar",
        "zip",
        "cp",
        "rsync",
        "scp",
        "sed",
        "awk",
        "cat",
        "head",
        "tail",
        "wc",
        "sort",
        "strings",
        "xxd",
        "od",
    }
)
_RECURSIVE_LONG = ("--recursive", "--dereference-recursive", "--directories", "--archive")


def _abbreviates_recursive(word: str) -> bool:
    """GNU tools accept ``--recur`` for ``--recursive``: any unambiguous-looking prefix."""
    name = word.split("=", 1)[0]
    return len(name) >= 5 and any(full.startswith(name) for full in _RECURSIVE_LONG)


_GIT_CONTENT_SUBCOMMANDS = frozenset(
    {
        "show",
        "diff",
        "log",
        "blame",
        "grep",
        "cat-file",
        "archive",
        "format-patch",
        "whatchanged",
        "stash",
        "annotate",
        "difftool",
        "bundle",
    }
)
_RECURSIVE_FLAG = re.compile(r"^-[a-zA-Z]*[rRa]|^--(?:dereference-)?recursive|^--directories")


def rule_may_match_under(rule: PermissionRule, tree: str, cwd: Path, home: Path) -> bool:
    """Whether a path rule could match the tree itself or anything inside it."""
    if rule.specifier is None:
        return True
    root, rest = rule_root(rule.specifier, rule.anchor, cwd, home)
    segments = [s for s in rest.rstrip("/").split("/") if s]
    literal: list[str] = []
    floating = len(segments) <= 1 or (len(segments) == 2 and segments[1] == "**")
    if not floating:
        for segment in segments[:-1]:
            if any(ch in segment for ch in "*?[\\"):
                break
            literal.append(segment)
    base = os.path.normpath(os.path.join(root, *literal))
    spellings = {os.path.normpath(tree), os.path.realpath(tree)}
    if not any(is_inside(t, base) or is_inside(base, t) for t in spellings):
        return False
    if any(is_inside(t, base) for t in spellings) and not floating and literal == segments:
        return True  # the tree lies inside a literally denied directory
    # The rule has wildcards (``**/.env``, ``secrets/**`` at any depth): look for a
    # match in the tree, giving up (and so assuming one) past a bounded number of entries.
    return _tree_has_match(rule, tree, cwd, home)


_WALK_LIMIT = 20_000


def _tree_has_match(rule: PermissionRule, tree: str, cwd: Path, home: Path) -> bool:
    def matches(path: str) -> bool:
        return rule_matches_path(rule, spell(path, cwd, home), cwd, home)

    return matches(tree) or (os.path.isdir(tree) and tree_has(tree, matches, _WALK_LIMIT))


def trees_read(command: SimpleCommand, base: Path) -> list[str]:
    """Absolute trees whose file contents the command may print (relative to ``base``)."""
    use = read_only_use(command.words)
    if use is None:
        use = _unknown_tree_reader(command)
    trees = [os.path.join(base, t) for t in use.trees]
    if use.repository:
        trees.append(str(_repository_root(base)))
    return trees


def _unknown_tree_reader(command: SimpleCommand) -> ReadOnlyUse:
    """A command that is not known read-only ran under an allow rule: judge its tree
    reads by the flags alone (``grep -R``, ``rg -L``…), counting every operand."""
    name = os.path.basename(command.name)
    if name not in _TREE_READERS:
        return ReadOnlyUse()
    args = [w for w in command.words[1:] if not w.startswith("-")]
    recursive = name in ("rg", "ag", "ack", "find", "tar") or any(
        _RECURSIVE_FLAG.match(w) or _abbreviates_recursive(w) for w in command.words[1:]
    )
    if name == "git":
        printing = any(w in _GIT_CONTENT_SUBCOMMANDS for w in command.words[1:])
        return ReadOnlyUse(repository=printing)
    return ReadOnlyUse(trees=tuple(args) or (".",)) if recursive else ReadOnlyUse()


def _repository_root(start: Path) -> Path:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def denied_tree_read(
    commands: Iterable[SimpleCommand],
    deny_rules: Sequence[PermissionRule],
    cwd: Path,
    home: Path,
    rule_cwd: Path,
) -> str | None:
    """A tree some command walks that a Read deny rule reaches into, if any."""
    read_rules = [r for r in deny_rules if r.tool == "Read" and r.specifier is not None]
    if not read_rules:
        return None
    for command in commands:
        for base in (cwd, *command.cd_dirs):
            for tree in trees_read(command, base):
                for rule in read_rules:
                    if rule_may_match_under(rule, tree, rule_cwd, home):
                        return f"{tree} (reaches into files denied by {rule.text})"
    return None
