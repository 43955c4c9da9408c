"""Glob patterns (``**``, ``*``, ``?``, ``[...]``, ``{a,b}``) compiled to regular expressions.

Python's ``fnmatch`` lets ``*`` cross ``/`` and knows no braces, and ``glob`` knows no braces
either, so the Glob tool compiles its own: matching is on the path relative to the search
root, with ``/`` separators.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GLOB_SPECIALS = frozenset("*?[{")


def _closing_bracket(pattern: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start``, or -1."""
    index = start + 1
    if index < len(pattern) and pattern[index] in "!^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1  # a leading ] is a literal member
    closing = pattern.find("]", index)
    return closing


def _brace_alternatives(pattern: str, start: int) -> tuple[list[str], int] | None:
    """The top-level comma-separated alternatives of ``{...}`` at ``start``, and its end."""
    depth = 0
    pieces: list[str] = []
    piece_start = start + 1
    for index in range(start, len(pattern)):
        char = pattern[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                pieces.append(pattern[piece_start:index])
                return (pieces, index)
        elif char == "," and depth == 1:
            pieces.append(pattern[piece_start:index])
            piece_start = index + 1
    return None


def translate(pattern: str) -> str:
    """A regex (without anchors) for ``pattern`` over ``/``-separated relative paths."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (closing := _closing_bracket(pattern, index)) != -1:
            members = pattern[index + 1 : closing]
            negate = members[:1] in ("!", "^")
            body = members[1:] if negate else members
            out.append(("[^/" if negate else "[") + body.replace("\\", "\\\\") + "]")
            index = closing
        elif char == "{" and (braces := _brace_alternatives(pattern, index)) is not None:
            alternatives, closing = braces
            out.append("(?:" + "|".join(translate(a) for a in alternatives) + ")")
            index = closing
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class CompiledGlob:
    """A pattern split into the literal directory to start from and what to match below it."""

    literal_prefix: str
    matcher: re.Pattern[str]
    # How many path segments below the prefix can match; None when ``**`` makes it unbounded.
    max_depth: int | None


def compile_glob(pattern: str) -> CompiledGlob:
    segments = pattern.split("/")
    prefix: list[str] = []
    while len(segments) > 1 and not (GLOB_SPECIALS & set(segments[0])) and "\\" not in segments[0]:
        prefix.append(segments.pop(0))
    rest = "/".join(segments)
    unbounded = "**" in rest or ("{" in rest and "/" in rest)
    depth = None if unbounded else rest.count("/") + 1
    return CompiledGlob("/".join(prefix), re.compile(translate(rest), re.DOTALL), depth)
