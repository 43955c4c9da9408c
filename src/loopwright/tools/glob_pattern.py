"""Glob patterns (``**``, ``*``, ``?``, ``[...]``, ``{a,b}``) compiled to matchers.

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


MAX_ALTERNATIVES = 1024


def expand_braces(pattern: str) -> list[str]:
    """``a{b,c{d,e}}f`` → abf, acdf, acef (escaped braces stay literal)."""
    index = 0
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if pattern[index] == "{" and (braces := _brace_alternatives(pattern, index)) is not None:
            alternatives, closing = braces
            if len(alternatives) > 1:
                head, tail = pattern[:index], pattern[closing + 1 :]
                out: list[str] = []
                for alternative in alternatives:
                    for rest in expand_braces(alternative + tail):
                        out.append(head + rest)
                        if len(out) > MAX_ALTERNATIVES:
                            raise ValueError(
                                f"the pattern expands to more than {MAX_ALTERNATIVES} "
                                "alternatives; use fewer braces"
                            )
                return out
        index += 1
    return [pattern]


def _segment_regex(segment: str) -> str:
    """One path segment. Each ``*`` but the last takes the shortest match, atomically, so
    a pattern like ``*a*a*a*b`` cannot backtrack exponentially (as fnmatch does)."""
    chunks: list[str] = [""]
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            chunks.append("")
        elif char == "?":
            chunks[-1] += "[^/]"
        elif char == "[" and (closing := _closing_bracket(segment, index)) != -1:
            members = segment[index + 1 : closing]
            negate = members[:1] in ("!", "^")
            body = members[1:] if negate else members
            chunks[-1] += ("[^/" if negate else "[") + body.replace("\\", "\\\\") + "]"
            index = closing
        elif char == "\\" and index + 1 < len(segment):
            index += 1
            chunks[-1] += re.escape(segment[index])
        else:
            chunks[-1] += re.escape(char)
        index += 1
    if len(chunks) == 1:
        return chunks[0]
    middle = "".join(f"(?>[^/]*?{chunk})" for chunk in chunks[1:-1])
    return f"{chunks[0]}{middle}[^/]*{chunks[-1]}"


_Segments = tuple["re.Pattern[str] | None", ...]  # None stands for ``**``


class GlobMatcher:
    """Matches ``/``-separated relative paths; ``**`` spans any number of segments (at
    least one at the end of a pattern). Segments match atomically, and patterns with
    ``**`` anywhere but at the start are matched segment by segment with memoisation, so
    no pattern backtracks exponentially (a plain regex did, for minutes, on ``**/**/…``)."""

    def __init__(self, pattern: str, *, braces: bool = True) -> None:
        self.pattern = pattern
        self._regexes: list[re.Pattern[str]] = []
        self._searches: list[_Segments] = []
        # Every alternative segment by segment, for ``covers`` (compiled on first use).
        self._texts: list[list[str | None]] = []
        self._all: list[_Segments] | None = None
        for alternative in expand_braces(pattern) if braces else [pattern]:
            segments: list[str | None] = []
            for segment in alternative.split("/"):
                if segment != "**":
                    segments.append(_segment_regex(segment))
                elif not segments or segments[-1] is not None:
                    segments.append(None)  # ``**/**`` is one ``**``
            self._texts.append(segments)
            stars = segments.count(None)
            if stars == 0 or (stars == 1 and segments[0] is None and len(segments) > 1):
                # One regex: segments cannot cross "/", so it backtracks only over where
                # a leading ``**`` ends (one try per directory level).
                body = "/".join(s for s in segments if s is not None)
                self._regexes.append(re.compile(("(?:[^/]*/)*" if stars else "") + body, re.S))
            else:
                self._searches.append(
                    tuple(None if s is None else re.compile(s, re.DOTALL) for s in segments)
                )

        only = self._regexes[0] if len(self._regexes) == 1 and not self._searches else None
        self._only = only

    def fullmatch(self, path: str) -> bool:
        if self._only is not None:
            return self._only.fullmatch(path) is not None
        if any(regex.fullmatch(path) for regex in self._regexes):
            return True
        if not self._searches:
            return False
        parts = path.split("/")
        return any(_match(segments, parts) for segments in self._searches)

    def covers(self, path: str) -> bool:
        """Whether the pattern matches ``path`` or one of its ancestors (gitignore: a
        pattern that matches a directory covers everything inside it). One pass over the
        segments, with no regex spanning ``/``: linear in the path, whatever the pattern."""
        if not path:
            return False
        if self._all is None:
            self._all = [
                tuple(None if s is None else re.compile(s, re.DOTALL) for s in segments)
                for segments in self._texts
            ]
        parts = path.split("/")
        return any(_match(segments, parts, prefix=True) for segments in self._all)


def _match(segments: _Segments, parts: list[str], *, prefix: bool = False) -> bool:
    """Segment-by-segment matching, each (pattern, path) position visited once. With
    ``prefix``, matching some leading part of ``parts`` (an ancestor) is enough."""
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    while stack:
        pattern_index, part_index = stack.pop()
        if (pattern_index, part_index) in seen:
            continue
        seen.add((pattern_index, part_index))
        if pattern_index == len(segments):
            if part_index == len(parts) or (prefix and part_index > 0):
                return True
            continue
        segment = segments[pattern_index]
        if segment is None:
            last = pattern_index == len(segments) - 1
            if last:
                if part_index < len(parts):
                    return True  # a trailing ** takes everything that is left
                continue
            stack.append((pattern_index + 1, part_index))
            if part_index < len(parts):
                stack.append((pattern_index, part_index + 1))
        elif part_index < len(parts) and segment.fullmatch(parts[part_index]):
            stack.append((pattern_index + 1, part_index + 1))
    return False


@dataclass(frozen=True, slots=True)
class CompiledGlob:
    """A pattern split into the literal directory to start from and what to match below it."""

    literal_prefix: str
    matcher: GlobMatcher
    # How many path segments below the prefix can match; None when ``**`` makes it unbounded.
    max_depth: int | None


def compile_glob(pattern: str) -> CompiledGlob:
    """Raises ValueError for a pattern with too many brace alternatives."""
    segments = pattern.split("/")
    prefix: list[str] = []
    while len(segments) > 1 and not (GLOB_SPECIALS & set(segments[0])) and "\\" not in segments[0]:
        prefix.append(segments.pop(0))
    rest = "/".join(segments)
    unbounded = "**" in rest or ("{" in rest and "/" in rest)
    depth = None if unbounded else rest.count("/") + 1
    return CompiledGlob("/".join(prefix), GlobMatcher(rest), depth)
