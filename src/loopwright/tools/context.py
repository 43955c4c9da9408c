"""What a tool gets when called: the session's shared state, and the services it offers.

:class:`ToolServices` is what a session offers its tools — each service one typed field,
``None`` where a session has none (a tool that needs a missing one answers the model with
an error result saying how to configure it). It is frozen: a tool reads services, it never
changes them, and it cannot use them to reach the loop. A tool asks the loop for something
only through its result (``ToolResult.request``, see :mod:`loopwright.tools.results`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from loopwright.messages import Message
from loopwright.models.base import Model
from loopwright.tools.command_wrapper import WrapsCommands
from loopwright.tools.results import LoopRequest, ToolResult
from loopwright.tools.web_address import WebFetchGuard
from loopwright.types import AskUser


@dataclass(slots=True)
class FileRecord:
    """What the session knows about a file it has read: when, and at which mtime/size."""

    mtime_ns: int
    size: int
    partial: bool = False


@dataclass(slots=True)
class SessionState:
    """Mutable per-session state that tools share (persisted with the session)."""

    cwd: Path
    read_files: dict[str, FileRecord] = field(default_factory=dict[str, FileRecord])
    todos: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    # Per-session services that tools own (background shells, persistent shell …).
    resources: dict[str, Any] = field(default_factory=dict[str, Any])

    def record_read(self, path: Path, *, partial: bool = False) -> None:
        stat = path.stat()
        self.read_files[str(path)] = FileRecord(stat.st_mtime_ns, stat.st_size, partial)


@runtime_checkable
class PathGuard(Protocol):
    """Which paths the session's Read deny rules hide (see permissions.read_guard)."""

    @property
    def active(self) -> bool: ...

    def denied(self, path: str, cwd: Path) -> bool: ...


@dataclass(frozen=True, slots=True)
class SearchResult:
    title: str
    url: str
    snippet: str = ""


@runtime_checkable
class SearchBackend(Protocol):
    """Anything that can answer a web search (an API client, a local index, a fake)."""

    async def search(
        self,
        query: str,
        allowed_domains: Sequence[str] | None,
        blocked_domains: Sequence[str] | None,
    ) -> list[SearchResult]: ...


class SubagentRunner(Protocol):
    """Runs a subagent for the Agent tool and returns its report as the tool's result.

    ``definition`` is the ``options.AgentDefinition`` the Agent tool chose; it is typed
    ``object`` here because tools sit below options in the layers, and the runner the loop
    installs (``loop/subagents.py``) checks it.
    """

    def __call__(
        self, name: str, definition: object, prompt: str, ctx: ToolContext
    ) -> Awaitable[ToolResult]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolServices:
    """What a session offers its tools; ``None`` where this session has none.

    Built once when the session is assembled (``session/assemble.py``). Two services exist
    only once the Session does — its own model and the subagent runner — and are added by
    replacing the whole value (``dataclasses.replace``) on the Session, before any call:
    every ToolContext then holds one consistent, unchangeable set.
    """

    # Grep and Glob ask it about every path they find (the session's Read deny rules).
    read_guard: PathGuard | None = None
    # WebFetch asks it about each address it connects to (WebFetch deny rules).
    web_fetch_guard: WebFetchGuard | None = None
    # AskUserQuestion's callback (Options.ask_user).
    ask_user: AskUser | None = None
    # WebSearch's backend (Options.web_search_backend).
    web_search: SearchBackend | None = None
    # How Bash runs commands: the session's environment and sandbox (None: as they are).
    command_wrapper: WrapsCommands | None = None
    # The session's current model for tools' own calls (WebFetch's summary), usage counted.
    model: Model | None = None
    # The Agent tool's way to run a subagent (installed by the loop; none in a subagent).
    run_subagent: SubagentRunner | None = None


@dataclass(slots=True)
class ToolContext:
    """Passed to every tool call."""

    state: SessionState
    tool_use_id: str
    session_id: str = ""
    working_dirs: tuple[Path, ...] = ()
    # Lets a tool put a message into the stream (subagent messages, todo updates).
    emit: Callable[[Message], Awaitable[None]] | None = None
    # What the session offers tools (read only: see ToolServices).
    services: ToolServices = field(default_factory=ToolServices)
    # What earlier calls of this response asked the loop for (a second handoff declines).
    earlier_requests: tuple[LoopRequest, ...] = ()
    # The OpenTelemetry context the call's span hangs under (the run's), or None.
    trace_context: object = None

    @property
    def cwd(self) -> Path:
        return self.state.cwd
