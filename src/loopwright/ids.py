"""Ids that become part of a path: a session id, an agent id, a tool-use id.

A session id names a transcript, a lock file, the sandbox's quarantine directory and the
saved tool output; an id with ``/``, ``..``, a newline or a NUL in it would put those files
somewhere else, or name two sessions with one string. :func:`check_id` is the one rule,
called wherever an id meets the file system and where Options take one.
"""

from __future__ import annotations

import re

from loopwright.errors import ConfigurationError

MAX_ID_LENGTH = 200
# fullmatch, not match with `$`: `$` also matches before a trailing newline ("x\n").
_SAFE_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_ID_LENGTH - 1}}}")


class InvalidIdError(ConfigurationError, ValueError):
    """An id that cannot safely become a file name; says which characters are allowed."""


def is_safe_id(value: object) -> bool:
    return isinstance(value, str) and _SAFE_ID.fullmatch(value) is not None


def check_id(value: object, what: str = "session id") -> str:
    """``value`` if it is a safe id, else :class:`InvalidIdError` saying what to use."""
    if is_safe_id(value):
        return str(value)
    shown = repr(value) if len(repr(value)) <= 80 else f"{repr(value)[:77]}..."
    raise InvalidIdError(
        f"invalid {what} {shown}: use letters, digits, '.', '_' and '-' only, at most "
        f"{MAX_ID_LENGTH}, starting with a letter or digit (a uuid is what loopwright "
        "generates)"
    )
