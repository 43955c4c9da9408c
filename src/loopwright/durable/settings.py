"""How this process runs durable sessions: set once by ``launch_durable``, read by every
session workflow the process runs (its own or ones it took over from a dead worker)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """``idempotent_tools``: names of tools safe to run a second time when a crash cut a
    call short (read-only tools always are); any other tool caught in flight by a crash
    gets an error result instead of a second run. ``replay_other_versions``: replay a
    session recorded by another loopwright version or other options instead of refusing.
    """

    idempotent_tools: frozenset[str] = frozenset()
    replay_other_versions: bool = False


_current = WorkerSettings()


def worker_settings() -> WorkerSettings:
    return _current


def configure_worker(settings: WorkerSettings) -> None:
    global _current
    _current = settings
