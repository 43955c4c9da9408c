"""A command as rules see it: program and subcommand, global options set aside.

``normalise(words)`` reads a known program's global options (global_options.py) and
returns the forms a rule is matched against — ``git -C . --no-pager push`` is
``git push`` — together with the options that change where or what it acts on. Deny
rules match any form; an allow rule may use a form only when no such option was given,
or when it spells each one out. When a global option cannot be read, every later word
might be the subcommand: deny rules try each.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from loopwright.permissions.shell.global_options import GLOBAL_SPECS, GlobalSpec

# docker's short commands and the management commands they stand for.
_DOCKER_MANAGED = {
    "container": frozenset(
        [
            "run",
            "rm",
            "exec",
            "stop",
            "kill",
            "start",
            "restart",
            "create",
            "logs",
            "attach",
            "commit",
            "cp",
            "diff",
            "export",
            "inspect",
            "pause",
            "port",
            "rename",
            "top",
            "unpause",
            "update",
            "wait",
        ]
    ),
    "image": frozenset(["build", "history", "import", "load", "pull", "push", "save", "tag"]),
}
_DOCKER_RENAMED = {("image", "rm"): "rmi", ("container", "ls"): "ps", ("image", "ls"): "images"}


@dataclass(frozen=True, slots=True)
class Normalised:
    forms: tuple[tuple[str, ...], ...]
    # Global options that change where or what the command acts on (as given).
    where: tuple[str, ...]
    unparsed: bool
    # make -f - : the makefile (code) comes from stdin.
    hidden: tuple[str, ...] = ()


def normalise(words: Sequence[str]) -> Normalised | None:
    """None for a program without a global-options table."""
    if not words:
        return None
    program = os.path.basename(words[0])
    spec = GLOBAL_SPECS.get(program)
    if spec is None:
        return None
    args = list(words[1:])
    kept, where, unparsed, values = _read_globals(spec, args)
    forms: list[tuple[str, ...]] = [(program, *kept)]
    operands = [w for w in kept if not w.startswith("-")]
    if spec.all_operands:
        forms += [(program, target) for target in operands if "=" not in target]
    elif operands:
        forms += _alias_forms(program, spec, kept, operands[0])
    if unparsed:
        forms += [(program, *args[j:]) for j in range(len(args)) if not args[j].startswith("-")]
    hidden = ()
    if spec.all_operands and any(values.get(k) == "-" for k in ("-f", "--file", "--makefile")):
        hidden = ("make reads its makefile from stdin",)
    return Normalised(tuple(dict.fromkeys(forms)), tuple(where), unparsed, hidden)


def _read_globals(
    spec: GlobalSpec, args: list[str]
) -> tuple[list[str], list[str], bool, dict[str, str]]:
    kept: list[str] = []
    where: list[str] = []
    values: dict[str, str] = {}
    unparsed = False
    seen_sub = False
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            kept += args[index:]
            break
        if spec.plus_word and index == 0 and word.startswith("+"):
            where.append(word)
            index += 1
            continue
        is_option = word.startswith("-") and word != "-"
        if is_option and (not seen_sub or spec.anywhere):
            match = _match(spec, word, args, index)
            if match is None:
                if not seen_sub:
                    unparsed = True
                    where.append(word)  # unknown: an allow rule must spell it
                kept.append(word)
                index += 1
                continue
            key, taken, value = match
            if key in spec.where:
                where.append(key)
            values[key] = value
            index += taken
            continue
        seen_sub = seen_sub or not is_option
        kept.append(word)
        index += 1
    return kept, where, unparsed, values


def _match(spec: GlobalSpec, word: str, args: list[str], index: int) -> tuple[str, int, str] | None:
    """(option, words taken, value) for a known global option, else None."""
    kind = spec.options.get(word)
    if kind == "flag" or kind == "optional":
        return word, 1, ""
    if kind == "value":
        return (word, 2, args[index + 1]) if index + 1 < len(args) else None
    name, glued, value = word.partition("=")
    if glued and spec.options.get(name) in ("value", "optional"):
        return name, 1, value
    short = word[:2]
    if (
        not word.startswith("--")
        and len(word) > 2
        and spec.options.get(short)
        in (
            "value",
            "optional",
        )
    ):
        return short, 1, word[2:]
    return None


def _alias_forms(
    program: str, spec: GlobalSpec, kept: list[str], sub: str
) -> list[tuple[str, ...]]:
    at = kept.index(sub)
    before, after = kept[:at], kept[at + 1 :]
    forms: list[tuple[str, ...]] = []
    if sub in spec.aliases:
        forms.append((program, *before, spec.aliases[sub], *after))
    if program in ("docker", "podman"):
        forms += _docker_forms(program, sub, after)
    return forms


def _docker_forms(program: str, sub: str, after: list[str]) -> list[tuple[str, ...]]:
    forms: list[tuple[str, ...]] = []
    if sub in _DOCKER_MANAGED and after:
        inner = after[0]
        short = _DOCKER_RENAMED.get((sub, inner), inner)
        forms.append((program, short, *after[1:]))
    for group, members in _DOCKER_MANAGED.items():
        if sub in members:
            forms.append((program, group, sub, *after))
    for (group, inner), short in _DOCKER_RENAMED.items():
        if sub == short:
            forms.append((program, group, inner, *after))
    return forms
