"""Whether a shell word, as written, is the word bash will really pass on.

The analyser approves commands by the words it sees. A word with an expansion in it —
``$x``, ``${x@P}``, ``${!name}``, ``${a[$(cmd)]}``, ``$((…))``, a backtick, ``$'…'``, brace
expansion ``{a,b}``, ``~user`` — becomes something else at run time, and some of those
forms run code while expanding. Such a word is *not literal*: no allow rule may match the
command and it never counts as read-only (fail closed).

Globs are judged apart: ``src/*.py`` expands to existing names that all start with
``src/``, so it cannot turn into an option; ``*.py`` might expand to ``-rf.py`` or
``--output=x`` and is treated as not literal.

The scan reads the raw source text of the word (quotes included), because bashlex hands
back words with quotes already removed, which hides whether a ``$`` was quoted.
"""

from __future__ import annotations

from typing import Literal

WordKind = Literal["literal", "glob", "expanding"]

_GLOB_CHARS = "*?["


def word_kind(raw: str) -> WordKind:
    """``literal``: bash passes exactly the unquoted text. ``glob``: pathname expansion may
    apply, but every result starts with the same literal, non-dash prefix. ``expanding``:
    anything else (the word can change, or code can run, while it is expanded)."""
    scan = _scan(raw)
    if scan is None:
        return "expanding"
    first_glob, has_brace = scan
    if has_brace:
        return "expanding"
    if first_glob is None:
        return "literal"
    if first_glob == 0 or raw.startswith("-"):
        return "expanding"
    return "glob"


def _scan(raw: str) -> tuple[int | None, bool] | None:
    """Walk the word's quoting. None when an expansion is found; otherwise the index of the
    first unquoted glob character (or None) and whether unquoted braces may expand."""
    if raw.startswith("~") and not (raw == "~" or raw.startswith("~/")):
        return None  # ~user, ~+, ~- (OLDPWD): a directory we cannot know
    first_glob: int | None = None
    brace_open = False
    brace_expands = False
    index = 0
    length = len(raw)
    while index < length:
        char = raw[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = raw.find("'", index + 1)
            if end < 0:
                return None
            index = end + 1
            continue
        if char == '"':
            end = _double_quoted_end(raw, index + 1)
            if end is None:
                return None
            index = end + 1
            continue
        if char in "$`":
            if char == "$" and index + 1 == length:
                index += 1  # a lone trailing $ is literal
                continue
            return None
        if char in _GLOB_CHARS and first_glob is None and _is_glob_at(raw, index):
            first_glob = index
        if char in "@+!" and index + 1 < length and raw[index + 1] == "(":
            return None  # extglob pattern
        if char == "~" and index > 0 and raw[index - 1] in "=:" and not _home_tilde(raw, index):
            return None  # bash expands ~user after = and : in assignment-like words
        if char == "{":
            brace_open = True
        elif char in ",." and brace_open:
            brace_expands = True
        elif char == "}" and brace_open and brace_expands:
            return first_glob, True
        index += 1
    return first_glob, False


def _home_tilde(raw: str, index: int) -> bool:
    return index + 1 == len(raw) or raw[index + 1] in "/:"


def _double_quoted_end(raw: str, start: int) -> int | None:
    """Index of the closing double quote; None when an expansion happens inside."""
    index = start
    while index < len(raw):
        char = raw[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return index
        if char == "`":
            return None
        if char == "$" and index + 1 < len(raw) and raw[index + 1] != '"':
            return None
        index += 1
    return None


def _is_glob_at(raw: str, index: int) -> bool:
    """``[`` only globs when a ``]`` closes it later in the word; ``*`` and ``?`` always."""
    if raw[index] != "[":
        return True
    return "]" in raw[index + 2 :]


# --------------------------------------------------------------------------- assignments

# Variables a command may set (for itself or, bare, for the rest of the line) without
# changing which program runs, where files are looked up, or what a later command does.
# Each is read only by the programs it configures, and only as a plain word (the value
# must be literal and contain no '/', so no variable here can point at a file).
HARMLESS_ASSIGNMENTS = frozenset(
    {
        "NODE_ENV",
        "RUST_LOG",
        "RUST_BACKTRACE",
        "CI",
        "LANG",
        "LC_ALL",
        "NO_COLOR",
        "FORCE_COLOR",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "COLUMNS",
        "GOOS",
        "GOARCH",
    }
)


def harmless_assignment(raw: str) -> bool:
    """``NAME=value`` (raw source text) sets a harmless variable to a literal plain word."""
    name, sep, value = raw.partition("=")
    if not sep or name not in HARMLESS_ASSIGNMENTS:
        return False
    if word_kind(value) != "literal" or value.startswith("~"):
        return False
    unquoted = value.replace("'", "").replace('"', "")
    return "/" not in unquoted and "\\" not in unquoted
