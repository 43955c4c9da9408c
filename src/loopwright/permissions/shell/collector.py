"""The state of one command's analysis: what the walk over its parse tree has found."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from loopwright.permissions.shell.results import SimpleCommand


@dataclass(slots=True)
class Collector:
    """What the analysis of one command has found so far, filled in as it walks the
    parse tree: the simple commands, what deny rules must see, redirects and inputs, why
    it is unsafe, and where later commands run after a ``cd``."""

    cwd: Path
    working_dirs: tuple[Path, ...]
    commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    deny_texts: list[str] = field(default_factory=list[str])
    redirects: list[str] = field(default_factory=list[str])
    inputs: list[str] = field(default_factory=list[str])
    unsafe: list[str] = field(default_factory=list[str])
    changes_dir: bool = False
    # Where later commands may run after ``cd``s seen so far; None once one is unknowable.
    cd_dirs: list[Path] | None = field(default_factory=list[Path])
    source: str = ""
    home: Path | None = None
    hidden: list[str] = field(default_factory=list[str])
    programs: list[str] = field(default_factory=list[str])
    nested_commands: list[SimpleCommand] = field(default_factory=list[SimpleCommand])
    open_programs: list[str] = field(default_factory=list[str])
    # The command being visited reads a pipe (it is not the first of a pipeline).
    piped: bool = False
