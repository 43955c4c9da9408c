"""Path rules for Read/Edit: gitignore-style patterns with four anchors.

``//abs`` is the filesystem root, ``~/`` the home directory, ``/x`` the directory of the
settings source that defined the rule, and ``x`` / ``./x`` the session's cwd. Every
path is checked in two spellings — as written (made absolute, ``..`` folded) and with
symlinks resolved — because a symlink inside an allowed directory may point anywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from loopwright.permissions.rules import PermissionRule

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
    regex, root = _compile(rule.specifier, rule.behavior == "allow", rule.anchor, cwd, home)
    hits = [_matches(regex, root, p) for p in spellings.both]
    return all(hits) if rule.behavior == "allow" else any(hits)


def _matches(regex: re.Pattern[str], root: str, path: str) -> bool:
    if not is_inside(path, root):
        return False
    # gitignore: a pattern that matches a directory also covers everything under it.
    candidate = path
    while True:
        if regex.fullmatch(candidate):
            return True
        parent = os.path.dirname(candidate)
        if parent in (candidate, root) or not is_inside(parent, root):
            return False
        candidate = parent


def _compile(
    specifier: str, is_allow: bool, anchor: Path | None, cwd: Path, home: Path
) -> tuple[re.Pattern[str], str]:
    root, rest = rule_root(specifier, anchor, cwd, home)
    return _compile_rest(rest, root, is_allow), root


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
def _compile_rest(rest: str, root: str, is_allow: bool) -> re.Pattern[str]:
    directory_only = rest.endswith("/")
    rest = rest.rstrip("/")
    if not rest:
        body = ".*"
    else:
        segments = rest.split("/")
        floating = len(segments) == 1 or (
            not is_allow and len(segments) == 2 and segments[1] == "**"
        )
        body = _segments_regex(segments)
        if floating and not rest.startswith("**"):
            # A bare name (and, for deny/ask, ``dir/**``) matches at any depth.
            body = r"(?:.*/)?" + body
    if directory_only:
        body += r"(?:/.*)?"
    prefix = re.escape(root.rstrip("/")) + "/"
    return re.compile(prefix + body, re.DOTALL)


def _segments_regex(segments: list[str]) -> str:
    if len(segments) > 1 and segments[-1] == "**":
        # ``dir/**`` also names ``dir`` itself: a Grep over the directory reads its files.
        return _segments_regex(segments[:-1]) + r"(?:/.*)?"
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else r"(?:.*/)?")
            continue
        out.append(_segment_regex(segment) + ("" if last else "/"))
    return "".join(out)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in segment[index + 1 :]:
            end = segment.index("]", index + 1)
            inner = segment[index + 1 : end].replace("\\", "\\\\")
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append(f"[{inner}]")
            index = end
        elif char == "\\" and index + 1 < len(segment):
            index += 1
            out.append(re.escape(segment[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


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
