"""Which program a Bash rule names, and whether the analyser knows that program's options.

For a program the analyser knows (its global options, its wrapper options, or its
read-only options are tabled), a deny rule is matched against the command's normalised
forms. For any other program a deny rule cannot tell one spelling of a subcommand from
another (``foo -x bar`` may well be ``foo bar``), so a deny or ask rule that names the
program matches every invocation of it: ``Bash(foo bar:*)`` also stops ``foo baz``.
"""

from __future__ import annotations

import os

from loopwright.permissions.shell.global_options import GLOBAL_SPECS
from loopwright.permissions.shell.readonly_programs import FREE_TEXT_PROGRAMS, PROGRAMS
from loopwright.permissions.shell.wrapper_options import WRAPPER_SPECS

KNOWN_PROGRAMS: frozenset[str] = frozenset(
    {*GLOBAL_SPECS, *WRAPPER_SPECS, *PROGRAMS, *FREE_TEXT_PROGRAMS}
    | {"find", "test", "[", "cd", "pushd", "popd", "date", "printf", "pwd", "eval", "trap"}
)


def rule_program(specifier: str) -> str | None:
    """The program a Bash rule's specifier starts with (None for a pattern such as
    ``* --force`` or ``FOO=1 cmd``)."""
    text = specifier.strip()
    if text.endswith(":*"):
        text = text[:-2]
    first = text.split(None, 1)[0] if text.split() else ""
    if not first or any(ch in first for ch in "*?[=\"'$`\\"):
        return None
    return os.path.basename(first)


def unknown_program_rule(specifier: str) -> str | None:
    """The program, when a restrictive rule names one the analyser does not know."""
    program = rule_program(specifier)
    return program if program is not None and program not in KNOWN_PROGRAMS else None
