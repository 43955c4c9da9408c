"""Durable sessions on DBOS: each model call and tool call a step, a queue that spreads
sessions over workers, and recovery that resumes a crashed session where it stopped.

Needs the optional ``dbos`` package (``pip install 'loopwright[durable]'``); importing
``loopwright`` itself never loads it.

    from loopwright import Options
    from loopwright.durable import durable_run, enqueue_session, launch_durable

    await launch_durable("sqlite:///sessions.db")  # or postgresql://...; a worker that
    # heartbeats and takes over the sessions of workers that died
    result = await durable_run("fix the tests", Options(model="anthropic:..."),
                               workflow_id="ticket-123")  # same ID again: same session
    handle = await enqueue_session("triage", options)  # any worker on the database runs it
    async for message in follow_session(handle.get_workflow_id(), store):  # live, anywhere
        ...

A durable session is a full session: its transcript goes to the configured session store.
Completed steps are never run again after a crash; a tool call cut short runs again only
if the tool is idempotent, otherwise the model gets an error result saying it may have
run. Workers replay only what their own loopwright version and options recorded.

Options are stored with the session (pickled) so that a recovering worker can rebuild it;
for options that cannot be pickled (@tool objects, closures) pass "package.module:name"
naming Options or a function returning them.
"""

try:
    import dbos as _dbos  # noqa: F401  # pyright: ignore[reportUnusedImport]
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "loopwright.durable needs the dbos package: pip install 'loopwright[durable]'"
    ) from exc

from .approvals import answer_in_fleet, approval_workflow, deny_overdue, waiting_sessions
from .follow import follow_session
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
from .settings import WorkerSettings
from .tools import DurableTool
from .versioning import application_version, session_fingerprint
from .workers import DEFAULT_TAKEOVER_SECONDS, WorkerRow, list_workers

__all__ = [
    "DEFAULT_TAKEOVER_SECONDS",
    "SESSION_QUEUE_NAME",
    "DurableModel",
    "DurableTool",
    "OptionsSource",
    "WorkerRow",
    "WorkerSettings",
    "answer_in_fleet",
    "application_version",
    "approval_workflow",
    "deny_overdue",
    "durable_run",
    "enqueue_session",
    "follow_session",
    "launch_durable",
    "list_workers",
    "session_fingerprint",
    "session_result",
    "session_workflow",
    "shutdown_durable",
    "start_session",
    "waiting_sessions",
]
