"""``loopwright --cwd DIR sessions list`` means ``loopwright sessions --cwd DIR list``.

Options the subcommands take as their own (``--cwd``, ``--session-store``) may be written
before the subcommand's name, as the README writes agent flags before ``-p``; they are
moved behind the name so the subcommand's parser sees them.
"""

from __future__ import annotations

from collections.abc import Sequence

SUBCOMMANDS = frozenset({"demo", "sessions", "loop", "schedule", "fleet"})
_MOVABLE = ("--cwd", "--session-store")


def with_subcommand_first(arguments: Sequence[str]) -> list[str]:
    leading: list[str] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word in _MOVABLE and index + 1 < len(arguments):
            leading += [word, arguments[index + 1]]
            index += 2
        elif word.split("=", 1)[0] in _MOVABLE and "=" in word:
            leading.append(word)
            index += 1
        else:
            break
    rest = list(arguments[index:])
    if leading and rest[:1] and rest[0] in SUBCOMMANDS:
        return [rest[0], *leading, *rest[1:]]
    return list(arguments)
