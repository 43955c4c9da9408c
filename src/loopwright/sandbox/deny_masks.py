"""Read deny rules become sandbox masks: a denied path is hidden from commands too.

Only rules that name a concrete place can be masked: an anchored path without glob
characters (``Read(./secrets.env)``, ``Read(//etc/app/key)``, ``Read(~/.config/x)``), or
the literal directory in front of a trailing ``/**`` or ``/*`` (``Read(./secrets/**)``
masks ``./secrets``). A bare name (``Read(.env)``) or a pattern with globs in the middle
matches at any depth and cannot be turned into a list of mounts; the permission checks
still apply to those, the masks do not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from loopwright.permissions.rules import READ_TOOLS, PermissionRule

_GLOB_CHARS = frozenset("*?[]{}")


def masks_for_read_denials(
    deny_rules: Iterable[PermissionRule], cwd: Path, home: Path
) -> tuple[str, ...]:
    """Absolute paths to mask for every Read-family deny rule that names one."""
    masks: list[str] = []
    for rule in deny_rules:
        if rule.tool not in READ_TOOLS or rule.specifier is None:
            continue
        path = concrete_path(rule.specifier, rule.anchor or cwd, cwd, home)
        if path is not None:
            masks.append(path)
    return tuple(dict.fromkeys(masks))


def concrete_path(pattern: str, anchor: Path, cwd: Path, home: Path) -> str | None:
    """The one path a deny pattern covers entirely, or None when it is not concrete."""
    if pattern.startswith("//"):
        root, rest, anchored = "/", pattern[2:], True
    elif pattern == "~" or pattern.startswith("~/"):
        root, rest, anchored = str(home), pattern[2:], True
    elif pattern.startswith("/"):
        root, rest, anchored = str(anchor), pattern[1:], True
    elif pattern.startswith("./"):
        root, rest, anchored = str(cwd), pattern[2:], True
    else:
        root, rest, anchored = str(cwd), pattern, "/" in pattern.rstrip("/")
    segments = [s for s in rest.split("/") if s]
    if segments and segments[-1] in ("**", "*"):
        segments = segments[:-1]
    if any(_GLOB_CHARS & set(segment) for segment in segments) or ".." in segments:
        return None
    if not segments:
        return None  # a whole root (/, ~, the project): masking it would hide everything
    if not anchored and len(segments) == 1:
        return None  # a bare name floats: it matches at any depth
    return os.path.normpath(os.path.join(root, *segments))
