"""Options resolved the way a program resolves them, against what we know it accepts.

A read-only judgement is positive knowledge: every option of the command must be one we
know is read-only for that program, and every value must land where we expect (a file to
read, a pattern, a number). ``parse_options`` reads words as GNU ``getopt_long`` does —
options anywhere before ``--`` (argument permutation), short options clustered
(``-ruo FILE`` is ``-r -u -o FILE``), values glued (``-n5``, ``--lines=5``) or in the next
word — and returns None at the first word it cannot place. Long options must be spelled
in full: GNU accepts unambiguous abbreviations (``--out`` for ``--output``), and since we
do not know every option a program has, an abbreviation cannot be resolved safely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

OptionKind = Literal["flag", "value", "path", "optional"]
OperandKind = Literal["content", "names", "text", "none", "pattern_then_content"]


@dataclass(frozen=True, slots=True)
class ProgramOptions:
    """What one program accepts without writing, running anything, or reading files we
    cannot see. ``path`` options take a file whose contents the program reads."""

    short: dict[str, OptionKind] = field(default_factory=dict[str, OptionKind])
    long: dict[str, OptionKind] = field(default_factory=dict[str, OptionKind])
    operands: OperandKind = "content"
    # Options after which content operands are trees walked for files to read.
    recursive: frozenset[str] = frozenset()
    # Walks trees whatever its options (ripgrep); with no operand it walks ".".
    always_recursive: bool = False
    # ``head -5``: a dash and digits is a count.
    numeric_flag: bool = False
    # Operands are only options (``-``-words) for this many leading words, as bash builtins.
    max_operands: int | None = None


def program(
    flags: str = "",
    values: str = "",
    paths: str = "",
    long: str = "",
    *,
    operands: OperandKind = "content",
    recursive: str = "",
    always_recursive: bool = False,
    numeric_flag: bool = False,
    max_operands: int | None = None,
) -> ProgramOptions:
    """Compact spelling: ``long`` is space-separated names, ``name`` a flag, ``name=`` a
    value, ``name=@`` a path that is read, ``name[=]`` an optional glued value."""
    short: dict[str, OptionKind] = {c: "flag" for c in flags}
    short.update({c: "value" for c in values})
    short.update({c: "path" for c in paths})
    long_options: dict[str, OptionKind] = {}
    for item in long.split():
        if item.endswith("=@"):
            long_options[item[:-2]] = "path"
        elif item.endswith("[=]"):
            long_options[item[:-3]] = "optional"
        elif item.endswith("="):
            long_options[item[:-1]] = "value"
        else:
            long_options[item] = "flag"
    return ProgramOptions(
        short,
        long_options,
        operands,
        frozenset(recursive.split()),
        always_recursive,
        numeric_flag,
        max_operands,
    )


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """The options a command was given (canonical ``-x`` / ``--name``), the files named by
    path options, and its operands in order."""

    options: frozenset[str]
    option_paths: tuple[str, ...]
    operands: tuple[str, ...]


def parse_options(spec: ProgramOptions, args: Sequence[str]) -> ParsedCommand | None:
    options: set[str] = set()
    option_paths: list[str] = []
    operands: list[str] = []
    index = 0
    only_operands = False
    while index < len(args):
        word = args[index]
        index += 1
        if only_operands or word == "-" or not word.startswith("-"):
            operands.append(word)
            continue
        if word == "--":
            only_operands = True
            continue
        if word.startswith("--"):
            taken = _long_option(spec, word, args, index, options, option_paths)
        else:
            taken = _short_cluster(spec, word, args, index, options, option_paths)
        if taken is None:
            return None
        index += taken
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return None
    return ParsedCommand(frozenset(options), tuple(option_paths), tuple(operands))


def _long_option(
    spec: ProgramOptions,
    word: str,
    args: Sequence[str],
    index: int,
    options: set[str],
    option_paths: list[str],
) -> int | None:
    """How many extra words the option consumed, or None when it is not known."""
    name, glued, value = word[2:].partition("=")
    kind = spec.long.get(name)
    if kind is None:
        return None
    options.add("--" + name)
    match kind:
        case "flag":
            return None if glued else 0
        case "optional":
            return 0
        case "value" | "path":
            return _take_value(kind, value if glued else None, args, index, option_paths)


def _short_cluster(
    spec: ProgramOptions,
    word: str,
    args: Sequence[str],
    index: int,
    options: set[str],
    option_paths: list[str],
) -> int | None:
    if spec.numeric_flag and word[1:].isdigit():
        return 0
    position = 1
    while position < len(word):
        letter = word[position]
        kind = spec.short.get(letter)
        if kind is None:
            return None
        options.add("-" + letter)
        if kind == "flag":
            position += 1
            continue
        if kind == "optional":
            return 0  # the rest of the word, if any, is its value; never the next word
        glued = word[position + 1 :]
        return _take_value(kind, glued or None, args, index, option_paths)
    return 0


def _take_value(
    kind: OptionKind,
    glued: str | None,
    args: Sequence[str],
    index: int,
    option_paths: list[str],
) -> int | None:
    """An option's value, glued on or the next word: how many words it took (None when
    it is missing, or is ``-`` for a path: a list of files on stdin we cannot see)."""
    value, taken = glued, 0
    if value is None:
        if index >= len(args):
            return None
        value, taken = args[index], 1
    if kind == "path":
        if value == "-":
            return None
        option_paths.append(value)
    return taken
