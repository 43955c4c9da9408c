"""Path rules for Read/Edit: gitignore-style patterns with four anchors.

``//abs`` is the filesystem root, ``~/`` the home directory, ``/x`` the directory of the
settings source that defined the rule, and ``x`` / ``./x`` the session's cwd. Every
path is checked in two spellings — as written (made absolute, ``..`` folded) and with
symlinks resolved — because a symlink inside an allowed directory may point anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from loopwright.permissions.rules import PermissionRule

if TYPE_CHECKING:
    from loopwright.tools.glob_pattern import GlobMatcher

_UNRESOLVABLE = "/\u2400unresolvable"


@dataclass(frozen=True, slots=True)
class PathSpellings:
    """A path as the tool will see it (lexical) and what it really is (resolved)."""

    lexical: str
    resolved: str

    @property
    def both(self) -> tuple[str, ...]:
        return (self.lexical,) if self.lexical == self.resolved else (self.lexical, self.resolved)


def spell(path: str, cwd: Path, home: Path) -> PathSpellings:
    """Absolute lexical path plus the symlink-resolved one (missing tails are kept)."""
    if path == "~" or path.startswith("~/"):
        expanded = str(home) + path[1:]
    elif path.startswith("~"):
        # ``~user/…``: the tools expand it (os.path.expanduser), so the check must too.
        expanded = os.path.expanduser(path)
    else:
        expanded = path
    joined = os.path.join(str(cwd), expanded)
    lexical = os.path.normpath(joined)
    if lexical.startswith("//"):
        lexical = lexical[1:]
    try:
        resolved = os.path.realpath(lexical)
    except OSError:
        # A link we may not read (/proc/1/cwd): where it leads is unknown, so it is
        # spelled as a place inside no working dir that no allow rule covers.
        resolved = _UNRESOLVABLE + lexical
    return PathSpellings(lexical, resolved)


def is_inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def inside_any(spellings: PathSpellings, directories: Iterable[Path]) -> bool:
    """True when every spelling of the path lies in one of the directories (both its
    own spelling and its real location), so a symlink out of a working dir is outside."""
    roots: list[str] = []
    for directory in directories:
        roots.append(os.path.normpath(str(directory)))
        roots.append(os.path.realpath(str(directory)))
    return all(any(is_inside(p, root) for root in roots) for p in spellings.both)


def rule_matches_path(
    rule: PermissionRule, spellings: PathSpellings, cwd: Path, home: Path
) -> bool:
    """Deny/ask rules match if any spelling matches; allow rules need every spelling."""
    assert rule.specifier is not None
    root, rest = rule_root(rule.specifier, rule.anchor, cwd, home)
    matcher = _matcher(rest, rule.behavior == "allow")
    hits = [_matches(matcher, root, p) for p in spellings.both]
    return all(hits) if rule.behavior == "allow" else any(hits)


def _matches(matcher: GlobMatcher, root: str, path: str) -> bool:
    if not is_inside(path, root):
        return False
    # gitignore: a pattern that matches a directory also covers everything under it.
    return matcher.covers(path[len(root.rstrip("/")) + 1 :])


def rule_root(specifier: str, anchor: Path | None, cwd: Path, home: Path) -> tuple[str, str]:
    """The directory a path rule is anchored at, and the pattern below it."""
    pattern = specifier
    if pattern.startswith("//"):
        root, rest = "/", pattern[2:]
    elif pattern == "~" or pattern.startswith("~/"):
        root, rest = str(home), pattern[2:]
    elif pattern.startswith("/"):
        root, rest = str(anchor or cwd), pattern[1:]
    else:
        root, rest = str(cwd), pattern[2:] if pattern.startswith("./") else pattern
    return os.path.normpath(root), rest


@lru_cache(maxsize=512)
def _matcher(rest: str, is_allow: bool) -> GlobMatcher:
    """The rule's pattern below its root as a glob matched segment by segment (the Glob
    tool's engine: no backtracking, ``**/**`` collapsed), in gitignore's reading."""
    from loopwright.tools.glob_pattern import GlobMatcher  # start-up: the first path rule

    # ``x/`` (a directory) covers x and what is inside, as ``x`` does.
    rest = rest.rstrip("/") or "**"
    segments = rest.split("/")
    floating = len(segments) == 1 or (not is_allow and len(segments) == 2 and segments[1] == "**")
    kept = list(segments)
    while len(kept) > 1 and kept[-1] == "**":
        # ``dir/**`` also names ``dir`` itself: a Grep over the directory reads its files.
        kept.pop()
    rest = "/".join(kept)
    if floating and not rest.startswith("**"):
        # A bare name (and, for deny/ask, ``dir/**``) matches at any depth.
        rest = "**/" + rest
    return GlobMatcher(rest, braces=False)


def tree_has(tree: str, test: Callable[[str], bool], limit: int) -> bool:
    """Whether ``test`` holds for some path inside the directory ``tree`` (symlinks are not
    followed). Past ``limit`` entries the answer is True: a tree too big to look through
    is treated as holding what we look for (fail closed)."""
    seen = 0
    for directory, subdirs, files in os.walk(tree):
        for name in (*subdirs, *files):
            seen += 1
            if seen > limit or test(os.path.join(directory, name)):
                return True
    return False
