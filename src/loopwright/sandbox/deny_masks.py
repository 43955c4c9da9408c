"""Read deny rules become sandbox masks: a denied path is hidden from commands too.

Only rules that name a concrete place can be masked: an anchored path without glob
characters (``Read(./secrets.env)``, ``Read(//etc/app/key)``, ``Read(~/.config/x)``), or
the literal directory in front of a trailing ``/**`` or ``/*`` (``Read(./secrets/**)``
masks ``./secrets``). A floating pattern — a bare name (``Read(.env)``, ``Read(*.pem)``),
``Read(**/.env)``, globs in the middle — is matched against the working dirs' trees
before every sandboxed command (``FloatingMasks``, bounded: MAX_SCAN_ENTRIES entries,
MAX_FLOATING_MASKS masks) and each path it matches is masked. What a command creates
while it runs, and matches outside the working dirs, are not masked (the permission
checks still apply to them).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from loopwright.permissions.paths.patterns import PathSpellings, rule_matches_path
from loopwright.permissions.rules import READ_TOOLS, PermissionRule

MAX_SCAN_ENTRIES = 50_000
MAX_FLOATING_MASKS = 1_000
# Never worth walking: packed git objects hold no file a path pattern could name.
_SKIP_DIRS = frozenset({".git/objects"})

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


@dataclass(frozen=True, slots=True)
class FloatingMasks:
    """Read deny rules with no one concrete path, and where to look for what they match."""

    rules: tuple[PermissionRule, ...]
    working_dirs: tuple[Path, ...]
    rule_cwd: Path
    home: Path

    @classmethod
    def from_rules(
        cls, deny_rules: Iterable[PermissionRule], working_dirs: Sequence[Path], home: Path
    ) -> FloatingMasks:
        dirs = tuple(Path(d) for d in working_dirs)
        cwd = dirs[0] if dirs else Path.cwd()
        floating = tuple(
            rule
            for rule in deny_rules
            if rule.tool in READ_TOOLS
            and rule.specifier is not None
            and concrete_path(rule.specifier, rule.anchor or cwd, cwd, home) is None
        )
        return cls(floating, dirs, cwd, home)

    def matches(self) -> tuple[list[str], bool]:
        """Existing paths the rules match (directories whole), and whether the walk was
        complete (False: it stopped at a bound)."""
        found: list[str] = []
        budget = [MAX_SCAN_ENTRIES]
        complete = True
        for root in self.working_dirs if self.rules else ():
            complete = self._walk(str(root), str(root), found, budget) and complete
        return found, complete

    def _walk(self, root: str, directory: str, found: list[str], budget: list[int]) -> bool:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return True
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0 or len(found) >= MAX_FLOATING_MASKS:
                return False
            if self._denied(entry.path):
                found.append(entry.path)
                continue
            descend = entry.is_dir(follow_symlinks=False)
            skipped = os.path.relpath(entry.path, root) in _SKIP_DIRS
            if descend and not skipped and not self._walk(root, entry.path, found, budget):
                return False
        return True

    def _denied(self, path: str) -> bool:
        spellings = PathSpellings(path, path)
        return any(
            rule_matches_path(rule, spellings, self.rule_cwd, self.home) for rule in self.rules
        )
