"""Look past the wrappers of a command (env, timeout, xargs, sudo…) to what really runs.

``unwrap(words)`` parses each wrapper with its option table (wrapper_options.py) and
returns the command allow rules judge (past the transparent wrappers only), the command
that really runs (past every wrapper, for deny rules), every level in between, and why an
allow rule may not approve it (``env -C`` runs it elsewhere, ``env -S`` re-splits a
string, ``xargs -I`` pastes input into it…). A wrapper with no command is the command:
``env`` alone prints the environment, ``nohup env`` too.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from loopwright.permissions.shell.literal import harmless_assignment
from loopwright.permissions.shell.wrapper_options import (
    WRAPPER_SPECS,
    WrapperOptionKind,
    WrapperSpec,
)

_MAX_DEPTH = 12


@dataclass(slots=True)
class Unwrapped:
    """What a command line's words run, seen through its wrappers."""

    allow_words: list[str]
    real_words: list[str]
    # Every word list on the way, outermost first (deny rules try each).
    levels: list[list[str]] = field(default_factory=list[list[str]])
    notes: list[str] = field(default_factory=list[str])
    args_from_stdin: bool = False
    # A wrapper whose options we could not read: what it runs is unknown.
    unparsed: bool = False
    # flock -c STRING / env -S STRING: a string the wrapper hands to a shell or splits.
    command_strings: list[str] = field(default_factory=list[str])
    # xargs -I: input is pasted into the words of the command (into a script, too).
    input_in_words: bool = False


@dataclass(frozen=True, slots=True)
class _Parsed:
    options: dict[str, str]  # canonical option -> value ("" for flags)
    rest: list[str]  # words after the options


def unwrap(words: list[str]) -> Unwrapped:
    result = Unwrapped(list(words), list(words), [list(words)])
    current = list(words)
    transparent = True
    for _ in range(_MAX_DEPTH):
        name = os.path.basename(current[0]) if current else ""
        wrapper = WRAPPER_SPECS.get(name)
        if wrapper is None:
            break
        inner = _step(name, wrapper, current[1:], result)
        if inner is None:
            break  # no command: the wrapper is what runs
        transparent = transparent and wrapper.transparent
        current = inner
        result.levels.append(list(current))
        result.real_words = list(current)
        if transparent:
            result.allow_words = list(current)
    return result


def _step(name: str, wrapper: WrapperSpec, args: list[str], out: Unwrapped) -> list[str] | None:
    """The command the wrapper runs (None when it runs none)."""
    parsed = _parse(wrapper, args)
    if parsed is None:
        out.unparsed = True
        out.notes.append(f"'{name}' has options the analyser cannot read")
        return None
    if any(option in wrapper.no_command for option in parsed.options):
        return None
    rest = parsed.rest
    match name:
        case "env":
            rest = _env(parsed, out)
        case "xargs":
            out.args_from_stdin = True
            if {"-I", "-i", "--replace"} & parsed.options.keys():
                out.input_in_words = True
                out.notes.append("xargs -I pastes its input into the command")
            return rest or None
        case "flock":
            script = parsed.options.get("-c", parsed.options.get("--command"))
            if script is not None:
                out.command_strings.append(script)
                return ["sh", "-c", script]
        case "sudo" | "doas":
            if {"-s", "--shell", "-i", "--login"} & parsed.options.keys() and not rest:
                return ["sh"]
            if {"-D", "--chdir", "-R", "--chroot"} & parsed.options.keys():
                out.notes.append(f"{name} runs the command in another directory")
            while rest and "=" in rest[0] and not rest[0].startswith("="):
                rest = rest[1:]
        case "exec" if {"-a"} & parsed.options.keys():
            out.notes.append("exec -a runs the command under another name")
        case _:
            pass
    if wrapper.positional:
        if len(rest) <= wrapper.positional:
            return None
        rest = rest[wrapper.positional :]
    return rest or None


def _env(parsed: _Parsed, out: Unwrapped) -> list[str]:
    options = parsed.options
    if {"-C", "--chdir"} & options.keys():
        out.notes.append("env -C runs the command in another directory")
    if {"-i", "--ignore-environment", "-u", "--unset"} & options.keys():
        out.notes.append("env -i/-u changes the environment the session set for commands")
    if "-S" in options:
        out.notes.append("env -S splits a string into the command line")
    if {"-a", "--argv0"} & options.keys():
        out.notes.append("env -a runs the command under another name")
    rest = parsed.rest
    bad = [w.split("=", 1)[0] for w in rest if "=" in w and not harmless_assignment(w)]
    while rest and "=" in rest[0] and not rest[0].startswith("="):
        rest = rest[1:]
    if bad:
        out.notes.append(f"env sets {', '.join(bad)} for the command")
    return rest


def _parse(wrapper: WrapperSpec, args: list[str]) -> _Parsed | None:
    """getopt_long with ``+``: options up to the first operand, then the rest as is.
    ``env -S STRING`` is split into words and read on, as env itself does."""
    options: dict[str, str] = {}
    splits: list[str] = []
    words = list(args)
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return _Parsed(options, words[index + 1 :])
        if not word.startswith("-") or word == "-":
            break
        if wrapper.numeric_flag and word[1:].isdigit():
            index += 1
            continue
        taken = (
            _long(wrapper, word, words, index, options)
            if word.startswith("--")
            else _short(wrapper, word, words, index, options)
        )
        if taken is None:
            return None
        index += taken
        if len(splits) > 4:
            return None  # env -S "-S ..." nested without end
        split = options.pop("-S", None)
        if split is None:
            split = options.pop("--split-string", None)
        if split is not None:
            try:
                pieces = shlex.split(split)
            except ValueError:
                return None
            splits.append(split)
            words[index:index] = pieces
    if splits:
        options["-S"] = " ".join(splits)
    return _Parsed(options, words[index:])


def _long(
    wrapper: WrapperSpec, word: str, words: list[str], index: int, options: dict[str, str]
) -> int | None:
    name, glued, value = word[2:].partition("=")
    canonical = resolve_long(name, wrapper.long)
    if canonical is None:
        return None
    kind = wrapper.long[canonical]
    key = "--" + canonical
    if kind == "flag":
        if glued:
            return None
        options[key] = ""
        return 1
    if kind == "optional" or glued:
        options[key] = value
        return 1
    if index + 1 >= len(words):
        return None
    options[key] = words[index + 1]
    return 2


def _short(
    wrapper: WrapperSpec, word: str, words: list[str], index: int, options: dict[str, str]
) -> int | None:
    position = 1
    while position < len(word):
        letter = word[position]
        kind: WrapperOptionKind | None = wrapper.short.get(letter)
        if kind is None:
            return None
        if kind == "flag":
            options["-" + letter] = ""
            position += 1
            continue
        glued = word[position + 1 :]
        if kind == "optional" or glued:
            options["-" + letter] = glued
            return 1
        if index + 1 >= len(words):
            return None
        options["-" + letter] = words[index + 1]
        return 2
    return 1


def resolve_long(name: str, table: dict[str, WrapperOptionKind]) -> str | None:
    """An exact name, or the one option that ``name`` abbreviates (getopt_long's rule)."""
    if name in table:
        return name
    matches = [option for option in table if option.startswith(name)]
    return matches[0] if name and len(matches) == 1 else None
