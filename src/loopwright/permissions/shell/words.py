"""Words of one shell command: spellings to match, crude splits, deny-side fallbacks.

Kept apart from the parser walk in analysis.py: pure functions over words (and ``~``/``$HOME``
expanded as bash does it).
Wrappers are parsed with their option tables in unwrap.py; the lists here are the deny
side's fallback (every later word of a program that runs its arguments may start the
real command).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

# Wrappers that run their argument as the real command.
WRAPPERS = frozenset(
    {
        "timeout",
        "time",
        "nice",
        "nohup",
        "stdbuf",
        "command",
        "builtin",
        "noglob",
        "env",
        "xargs",
        "exec",
    }
)
# Programs that run their arguments as a command; deny rules look past them (allow rules
# only look past the plain wrappers above: ``sudo rm`` is not ``rm`` for an allow rule).
EXEC_WRAPPERS = WRAPPERS | {
    "sudo",
    "doas",
    "watch",
    "setsid",
    "ionice",
    "flock",
    "chrt",
    "taskset",
    "unbuffer",
    "busybox",
    "strace",
    "ltrace",
    "nsenter",
    "unshare",
    "chroot",
    "su",
    "runuser",
    "parallel",
    "script",
    "firejail",
    "proxychains",
    "torsocks",
    "caffeinate",
}


def crude_split(command: str) -> list[str]:
    """Best-effort pieces for deny matching when the parser fails: split on operators and
    substitution brackets, then strip quotes and wrappers from each piece."""
    pieces = re.split(r"\|\||&&|[;|&\n(){}`]|\$\(|<\(|>\(", command)
    out: list[str] = []
    for piece in pieces:
        words = [w.strip("'\"") for w in piece.split()]
        while words and ("=" in words[0] or words[0] in WRAPPERS):
            words = words[1:]
        if words:
            out.append(" ".join(words))
            out.append(" ".join([os.path.basename(words[0]), *words[1:]]))
    return out


def deny_variants(words: list[str], stripped: list[str]) -> list[str]:
    variants: list[str] = []
    for candidate in (words, stripped, strip_wrapper_flags(words), *wrapped_suffixes(words)):
        if not candidate:
            continue
        variants.append(" ".join(candidate))
        variants.append(" ".join(quote(w) for w in candidate))
        base = os.path.basename(candidate[0])
        if base != candidate[0]:
            variants.append(" ".join([base, *candidate[1:]]))
    return variants


def wrapped_suffixes(words: list[str]) -> list[list[str]]:
    """After any program that runs its arguments (sudo, watch, flock…), every later
    non-flag word may start the real command; deny rules try each such tail."""
    if not words or os.path.basename(words[0]) not in EXEC_WRAPPERS:
        return []
    return [words[j:] for j in range(1, len(words)) if not words[j].startswith("-")]


def strip_wrapper_flags(words: list[str]) -> list[str]:
    """Aggressive stripping for deny matching: drop every leading wrapper and its flags."""
    current = list(words)
    while current and (current[0] in WRAPPERS or "=" in current[0]):
        current = current[1:]
        while current and (current[0].startswith("-") or current[0][:1].isdigit()):
            current = current[1:]
    return current


def find_exec_commands(words: list[str]) -> list[list[str]]:
    found: list[list[str]] = []
    for index, arg in enumerate(words):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner: list[str] = []
            for word in words[index + 1 :]:
                if word in (";", "+", "\\;"):
                    break
                inner.append(word)
            if inner:
                found.append(inner)
    return found


def quote(word: str, *, double: bool = False) -> str:
    if word and re.fullmatch(r"[\w@%+=:,./~^-]*", word):
        return word
    if double and not any(ch in word for ch in '"$`\\!'):
        return f'"{word}"'
    return shlex.quote(word)


_HOME_PREFIXES = ("$HOME", "${HOME}", '"$HOME"', '"${HOME}"', '"$HOME/', '"${HOME}/')


def expand_home(raw: str, word: str, home: Path | None) -> str:
    """``~``, ``~/x``, ``$HOME/x``, ``"$HOME/x"`` as bash expands them (when home is known
    and nothing else in the word expands)."""
    if home is None:
        return word
    if raw == "~" or raw.startswith("~/"):
        return str(home) + word[1:]
    for prefix in ("${HOME}", "$HOME"):
        if word.startswith(prefix) and raw.startswith(_HOME_PREFIXES):
            rest = word[len(prefix) :]
            if rest and rest[0] not in "/":
                return word  # $HOMEDIR is another variable
            if "$" in rest or "`" in rest:
                return word
            return str(home) + rest
    return word
