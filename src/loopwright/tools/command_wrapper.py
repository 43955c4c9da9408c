"""How tool subprocesses (Bash) get their environment and, optionally, their sandbox."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class CommandSandbox(Protocol):
    def wrap(
        self, argv: list[str], env: dict[str, str], cwd: str, *, configured: Sequence[str] = ()
    ) -> tuple[list[str], dict[str, str]]: ...


class WrapsCommands(Protocol):
    """What Bash hands each command to: argv and environment in, what to run out (a
    CommandWrapper in a session; anything with ``wrap``, such as a sandbox, in tests). An
    optional ``watch_protected()`` returns a ProtectedPathsWatch for one command."""

    def wrap(
        self, argv: list[str], env: dict[str, str], cwd: str
    ) -> tuple[list[str], dict[str, str]]: ...


class ProtectedPathsWatch(Protocol):
    """Taken before a command; ``settle()`` after it undoes what the command may not do
    (create protected paths) and returns a note for the tool result ('' if nothing)."""

    def settle(self) -> str: ...


@dataclass(frozen=True, slots=True)
class CommandWrapper:
    """Adds the session's environment (Options.env, settings ``env``) to every command,
    then hands it to the sandbox, if there is one. Tools find it as the
    ``command_wrapper`` service (ToolServices)."""

    env: Mapping[str, str] = field(default_factory=dict[str, str])
    sandbox: CommandSandbox | Any | None = None

    def wrap(
        self, argv: list[str], env: dict[str, str], cwd: str
    ) -> tuple[list[str], dict[str, str]]:
        merged = {**env, **self.env}
        if self.sandbox is None:
            return argv, merged
        if not self.env:
            wrapped: tuple[list[str], dict[str, str]] = self.sandbox.wrap(argv, merged, cwd)
            return wrapped
        # The session's own variables pass the sandbox's environment allow-list.
        configured: tuple[list[str], dict[str, str]] = self.sandbox.wrap(
            argv, merged, cwd, configured=tuple(self.env)
        )
        return configured

    def watch_protected(self) -> ProtectedPathsWatch | None:
        return watch_protected_paths(self.sandbox)


def watch_protected_paths(wrapper: Any) -> ProtectedPathsWatch | None:
    """The wrapper's watch over protected paths, for one command (None: nothing to watch)."""
    start: Any = getattr(wrapper, "watch_protected", None)
    if start is None:
        return None
    watch: ProtectedPathsWatch | None = start()
    return watch
