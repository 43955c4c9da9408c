"""What a read-only command reads — or None when it is not known to be read-only.

``read_only_use(words)`` resolves the command's options against the tables in
readonly_programs.py / readonly_git.py and sorts its operands: files whose contents it
prints, paths it only lists or inspects, and trees it walks for contents. The policy then
holds every one of them to the working directories and the Read deny rules.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass

from loopwright.permissions.shell.option_parsing import (
    ParsedCommand,
    ProgramOptions,
    parse_options,
    program,
)
from loopwright.permissions.shell.readonly_git import GIT_GLOBAL_OPTIONS, GIT_SUBCOMMANDS
from loopwright.permissions.shell.readonly_programs import (
    FIND_GLOBAL_OPTIONS,
    FIND_PRIMARIES,
    FREE_TEXT_PROGRAMS,
    PROGRAMS,
    TEST_OPERATORS,
)

_CD = program("LPe@", operands="names", max_operands=1)
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "-f", "--file"})


@dataclass(frozen=True, slots=True)
class ReadOnlyUse:
    """The paths a read-only command touches, by how it touches them."""

    content: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    trees: tuple[str, ...] = ()
    # git's content readers (diff, show, log -p, blame) read the whole repository.
    repository: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return (*self.content, *self.names, *self.trees)


def read_only_use(words: Sequence[str]) -> ReadOnlyUse | None:
    # One call's policy asks this several times for the same words (read-only?, files
    # read, trees walked, protected writes): parse them once.
    return _read_only_use(tuple(words))


@functools.lru_cache(maxsize=2048)
def _read_only_use(words: tuple[str, ...]) -> ReadOnlyUse | None:
    if not words:
        return ReadOnlyUse()
    name = os.path.basename(words[0])
    args = list(words[1:])
    if name in FREE_TEXT_PROGRAMS:
        return ReadOnlyUse()
    match name:
        case "cd" | "pushd":
            parsed = parse_options(_CD, args)
            return None if parsed is None else ReadOnlyUse(names=parsed.operands)
        case "find":
            return _find(args)
        case "test":
            return _test(args)
        case "[":
            return _test(args[:-1]) if args and args[-1] == "]" else None
        case "git":
            return _git(args)
        case "date":
            parsed = parse_options(PROGRAMS["date"], args)
            if parsed is None or any(not op.startswith("+") for op in parsed.operands):
                return None  # a bare operand sets the clock
            return ReadOnlyUse(content=parsed.option_paths)
        case _:
            spec = PROGRAMS.get(name)
            return None if spec is None else _generic(spec, args)


def _generic(spec: ProgramOptions, args: list[str]) -> ReadOnlyUse | None:
    parsed = parse_options(spec, args)
    if parsed is None:
        return None
    operands = list(parsed.operands)
    match spec.operands:
        case "none":
            return ReadOnlyUse() if not operands else None
        case "text":
            return ReadOnlyUse(content=parsed.option_paths)
        case "names":
            return ReadOnlyUse(content=parsed.option_paths, names=tuple(operands))
        case "pattern_then_content":
            if operands and not (parsed.options & _PATTERN_OPTIONS):
                operands = operands[1:]  # the first operand is the pattern
            elif not operands and not (parsed.options & _PATTERN_OPTIONS):
                return None
        case "content":
            pass
    return _contents(spec, parsed, operands)


def _contents(spec: ProgramOptions, parsed: ParsedCommand, operands: list[str]) -> ReadOnlyUse:
    recursive = spec.always_recursive or bool(parsed.options & spec.recursive)
    if not recursive:
        return ReadOnlyUse(content=(*parsed.option_paths, *operands))
    return ReadOnlyUse(content=parsed.option_paths, trees=tuple(operands) or (".",))


def _find(args: list[str]) -> ReadOnlyUse | None:
    index = 0
    while index < len(args) and args[index] in FIND_GLOBAL_OPTIONS:
        index += 1
    starts: list[str] = []
    while index < len(args) and not args[index].startswith(("-", "(", "!")):
        starts.append(args[index])
        index += 1
    names: list[str] = []
    while index < len(args):
        arity = FIND_PRIMARIES.get(args[index])
        if arity is None or (arity and index + arity >= len(args)):
            return None
        if args[index] in ("-newer", "-anewer", "-cnewer", "-samefile") and arity:
            names.append(args[index + 1])
        index += 1 + arity
    return ReadOnlyUse(names=(*(starts or ["."]), *names))


def _test(args: list[str]) -> ReadOnlyUse | None:
    if any(a.startswith("-") and a not in TEST_OPERATORS for a in args):
        return None
    return ReadOnlyUse()


def _git(args: list[str]) -> ReadOnlyUse | None:
    index = 0
    while index < len(args) and args[index] in GIT_GLOBAL_OPTIONS:
        index += 1
    if index >= len(args):
        return None
    sub = GIT_SUBCOMMANDS.get(args[index])
    if sub is None:
        return None
    parsed = parse_options(sub.options, args[index + 1 :])
    if parsed is None:
        return None
    if parsed.operands and sub.operands_need and not (parsed.options & sub.operands_need):
        return None  # ``git branch NAME`` creates a branch
    if sub.options.operands == "none" and parsed.operands:
        return None
    # ``rev:path`` names a file's contents in history.
    content = tuple(op.split(":", 1)[1] for op in parsed.operands if ":" in op)
    names = tuple(op for op in parsed.operands if ":" not in op)
    reads_contents = sub.content or bool(parsed.options & sub.content_options)
    if sub.options.operands == "text":
        names = ()
    return ReadOnlyUse(
        content=(*parsed.option_paths, *content),
        names=names,
        repository=reads_contents,
    )
