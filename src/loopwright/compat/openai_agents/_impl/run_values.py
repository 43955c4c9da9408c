"""The values a run hands from the native loop's task to whoever drives the Runner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from loopwright.messages import Message

DEFAULT_MAX_TURNS = 10


@dataclass(frozen=True, slots=True)
class Delivered:
    """One native message and the run items it stands for."""

    message: Message
    items: list[Any]
    handoff: tuple[Any, Any] | None = None  # (source agent, target agent)


@dataclass(frozen=True, slots=True)
class Failed:
    error: BaseException


# What the run's queue carries: a message, the run's failure, or None when it has ended.
Event = Delivered | Failed | None
