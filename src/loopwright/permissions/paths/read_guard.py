"""Read deny rules as a service for the tools that find files themselves (Grep, Glob).

The permission check sees only the directory a search starts from; the files it turns up
are found later, by ripgrep or a directory walk. Those tools ask the guard about every
path before it reaches the model, so ``Read(./secrets/**)`` holds for ``Grep path="."``
and for any Glob pattern, whatever its syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from loopwright.permissions.paths.patterns import rule_matches_path, spell
from loopwright.permissions.rules import PermissionRule


@dataclass(frozen=True, slots=True)
class ReadGuard:
    """Which paths Read deny rules hide. ``rule_cwd`` anchors ``./x`` rules (the
    session's first working directory)."""

    deny_rules: tuple[PermissionRule, ...]
    rule_cwd: Path
    home: Path

    @classmethod
    def from_rules(cls, rules: Sequence[PermissionRule], rule_cwd: Path, home: Path) -> ReadGuard:
        reads = tuple(r for r in rules if r.tool in ("Read", "Grep", "Glob") and r.specifier)
        return cls(reads, rule_cwd, home)

    @property
    def active(self) -> bool:
        return bool(self.deny_rules)

    def denied(self, path: str, cwd: Path) -> bool:
        """Whether ``path`` (relative to ``cwd`` or absolute) is covered by a deny rule,
        as written or where its symlinks lead."""
        spellings = spell(path, cwd, self.home)
        return any(
            rule_matches_path(rule, spellings, anchor, self.home)
            for rule in self.deny_rules
            for anchor in dict.fromkeys((self.rule_cwd, cwd))
        )
