"""Where a command takes code to run: a shell's ``-c`` string (``sh -ec``, ``bash -xc``),
its stdin, a script file; ``trap``'s and ``eval``'s arguments; an interpreter's ``-c``/``-e``.

bash reads its options the way ``set`` does: clusters (``-ec`` is ``-e -c``), ``-o NAME``
and ``+o NAME`` take a value, ``--rcfile FILE`` too, and with ``-c`` the first operand is
the command string, whatever options came between.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"})
# Interpreters and the options that take a program text.
_INTERPRETER_CODE: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "python3": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "-p", "--eval", "--print"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
}
_SHELL_LONG_VALUES = frozenset({"--rcfile", "--init-file"})

ShellSource = Literal["string", "stdin", "file", "none"]


def shell_code(words: Sequence[str]) -> tuple[ShellSource, str | None]:
    """How a shell invocation gets its commands: the ``-c`` string, stdin, or a file."""
    if not words or os.path.basename(words[0]) not in SHELLS:
        return "none", None
    args = list(words[1:])
    if os.path.basename(words[0]) == "busybox":
        if not args or args[0] not in ("sh", "ash", "bash"):
            return "none", None
        args = args[1:]
    has_c = False
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("--", "-"):
            index += 1
            break
        if word.startswith("--"):
            index += 2 if word in _SHELL_LONG_VALUES else 1
            continue
        if not word.startswith(("-", "+")) or len(word) < 2:
            break
        letters = word[1:]
        has_c = has_c or (word[0] == "-" and "c" in letters)
        index += 1 + sum(1 for letter in letters if letter in "oO")
    operands = args[index:]
    if has_c:
        return "string", operands[0] if operands else None
    return ("file", operands[0]) if operands else ("stdin", None)


def trap_code(words: Sequence[str]) -> str | None:
    """The command ``trap`` installs (``trap 'cmd' EXIT``, ``trap -- 'cmd' INT``)."""
    if not words or words[0] != "trap":
        return None
    args = [w for w in words[1:] if w not in ("--",)]
    if not args or args[0] in ("-p", "-l", "-"):
        return None
    return args[0] if len(args) > 1 else None


def interpreter_code(words: Sequence[str]) -> str | None:
    """The option through which an interpreter runs program text given on the line."""
    if not words:
        return None
    name = os.path.basename(words[0])
    options = _INTERPRETER_CODE.get(name)
    if options is None and name.startswith("python"):
        options = _INTERPRETER_CODE["python"]
    if options is None:
        return None
    for word in words[1:]:
        if word in options or any(word.startswith(o) and len(word) > len(o) for o in options):
            return word
        if (
            word.startswith("-")
            and not word.startswith("--")
            and any(o[1:] in word for o in options if len(o) == 2)
        ):
            return word  # a cluster such as python -Ic
    return None


def interpreter_reads_stdin(words: Sequence[str]) -> bool:
    """An interpreter that runs what arrives on stdin (``| python``, ``| perl``)."""
    if not words:
        return False
    name = os.path.basename(words[0])
    if name not in _INTERPRETER_CODE and not name.startswith("python"):
        return False
    return all(w.startswith("-") for w in words[1:]) or "-" in words[1:]
