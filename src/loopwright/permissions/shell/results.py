"""What the analyser found in a command line: its simple commands and why, if at all,
no allow rule may approve it. Plain values; :mod:`.analysis` produces them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loopwright.permissions.shell.words import quote


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One command as allow rules see it: wrappers and leading assignments removed."""

    words: tuple[str, ...]
    # Every spelling a deny rule should be tried against (with and without wrappers…).
    deny_texts: tuple[str, ...]
    # The command as the model wrote it (quotes kept, wrappers dropped), so a rule written
    # with its own quoting, like Bash(git commit -m "wip"), can match it as typed.
    source_text: str = ""
    # Directories an earlier ``cd`` on the same line may have moved it to (besides the
    # call's cwd); relative paths are judged against each. False: a ``cd`` we cannot
    # follow (no argument, ``-``, a variable…) came first, so its directory is unknown.
    cd_dirs: tuple[Path, ...] = ()
    cwd_known: bool = True
    # Run through xargs: its real arguments arrive on stdin and cannot be checked.
    args_from_stdin: bool = False

    @property
    def text(self) -> str:
        return " ".join(quote(word) for word in self.words)

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def spellings(self) -> tuple[str, ...]:
        """Equivalent ways to write the command: shell-quoted, double-quoted, as typed."""
        double = " ".join(quote(w, double=True) for w in self.words)
        return tuple(dict.fromkeys(t for t in (self.text, double, self.source_text) if t))


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    """What a command line runs. ``unsafe`` lists why no allow rule may match it."""

    source: str
    commands: tuple[SimpleCommand, ...]
    # Every text a deny rule is tried against, nested substitutions included.
    deny_texts: tuple[str, ...]
    redirect_targets: tuple[str, ...] = ()
    # Files fed to commands with ``<``: reads, so Read deny rules apply to them.
    input_sources: tuple[str, ...] = ()
    unsafe: tuple[str, ...] = ()
    # Code that runs but cannot be seen (a shell reading a pipe, ``eval "$x"``, a command
    # name from a variable…): a deny rule could match it, so it asks even in bypass mode.
    hidden: tuple[str, ...] = ()
    # Every program the line starts, at every wrapper level and nesting (basenames).
    programs: tuple[str, ...] = ()
    # Commands inside ``sh -c``, eval, trap, heredocs fed to a shell: file rules apply.
    nested_commands: tuple[SimpleCommand, ...] = ()
    # Programs whose arguments are not all known before the line runs (an expansion, a
    # glob, arguments from xargs): ``git $sub`` may be ``git push``.
    open_programs: tuple[str, ...] = ()

    @property
    def all_commands(self) -> tuple[SimpleCommand, ...]:
        return (*self.commands, *self.nested_commands)

    @property
    def safe(self) -> bool:
        return not self.unsafe
