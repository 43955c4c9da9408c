"""Durable sessions on DBOS: each model call and tool call a step, a queue that spreads
sessions over workers, and recovery that resumes a crashed session where it stopped.

Needs the optional ``dbos`` package (``pip install 'loopwright[durable]'``); importing
``loopwright`` itself never loads it.
"""

try:
    import dbos as _dbos  # noqa: F401  # pyright: ignore[reportUnusedImport]
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "loopwright.durable needs the dbos package: pip install 'loopwright[durable]'"
    ) from exc

from .launch import launch_durable, shutdown_durable
from .model import DurableModel
from .session import (
    SESSION_QUEUE_NAME,
    OptionsSource,
    durable_run,
    enqueue_session,
    session_result,
    session_workflow,
    start_session,
)
from .tools import DurableTool

__all__ = [
    "SESSION_QUEUE_NAME",
    "DurableModel",
    "DurableTool",
    "OptionsSource",
    "durable_run",
    "enqueue_session",
    "launch_durable",
    "session_result",
    "session_workflow",
    "shutdown_durable",
    "start_session",
]
