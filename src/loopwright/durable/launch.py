"""Starting DBOS for durable sessions: one call, with the system database's URL.

``sqlite:///path/to/file.db`` keeps everything on one machine; ``postgresql://...`` lets
workers on many machines share the queue. Each launch is a new worker with a fresh
executor id that heartbeats in the database; when a worker goes silent, a live one takes
its unfinished sessions over (see :mod:`loopwright.durable.workers`), so nothing waits for
a dead process to come back under its old name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dbos import DBOS, DBOSConfig

# Importing session registers the workflow, which must happen before DBOS launches, or
# recovery would find pending sessions it does not know how to run.
from .session import SESSION_QUEUE_NAME
from .settings import WorkerSettings, configure_worker
from .versioning import application_version as loopwright_application_version
from .workers import DEFAULT_TAKEOVER_SECONDS, Heartbeat, Timing, engine_for, new_executor_id

DEFAULT_APP_NAME = "loopwright"
QUEUE_POLLING_SECONDS = 0.5

_heartbeat: Heartbeat | None = None


async def launch_durable(
    system_database_url: str,
    *,
    app_name: str = DEFAULT_APP_NAME,
    executor_id: str | None = None,
    log_level: str = "WARNING",
    sessions_per_worker: int | None = 100,
    serve_queue: bool = True,
    heartbeat: bool = True,
    takeover_seconds: float = DEFAULT_TAKEOVER_SECONDS,
    idempotent_tools: Iterable[str] = (),
    replay_other_versions: bool = False,
    application_version: str | None = None,
    on_fenced: Callable[[], None] | None = None,
) -> DBOS:
    """Configure and launch DBOS as a worker (or, with ``serve_queue=False``, a process
    that only enqueues and follows sessions).

    ``executor_id`` defaults to a fresh id per process; pass one only to have a restarted
    process resume its own sessions without heartbeats. ``sessions_per_worker`` caps the
    queued sessions this process runs at once. ``takeover_seconds`` bounds how long a dead
    worker's sessions wait for another worker. ``idempotent_tools`` names tools that may
    run again after a crash cut a call short (read-only tools always may).
    ``application_version`` defaults to ``loopwright-<version>``: workers of another
    version leave these sessions alone.
    """
    global _heartbeat
    if takeover_seconds <= 0:
        raise ValueError(
            f"takeover_seconds={takeover_seconds} must be positive: it is how long a dead "
            "worker's sessions may wait for another worker (default 30)"
        )
    configure_worker(WorkerSettings(frozenset(idempotent_tools), replay_other_versions))
    version = application_version or loopwright_application_version()
    executor = executor_id or new_executor_id()
    config: DBOSConfig = {
        "name": app_name,
        "system_database_url": system_database_url,
        "log_level": log_level,
        "application_version": version,
        "executor_id": executor,
    }
    dbos = DBOS(config=config)
    if not serve_queue:
        DBOS.listen_queues([])
    DBOS.launch()
    await DBOS.register_queue_async(
        SESSION_QUEUE_NAME,
        worker_concurrency=sessions_per_worker,
        polling_interval_sec=QUEUE_POLLING_SECONDS,
    )
    if heartbeat and serve_queue and executor_id is None:
        _heartbeat = Heartbeat(
            engine_for(system_database_url), executor, version, Timing(takeover_seconds), on_fenced
        )
        _heartbeat.start()
    return dbos


def shutdown_durable() -> None:
    """Stop DBOS's background work; other workers take over the sessions still running."""
    global _heartbeat
    DBOS.destroy()
    if _heartbeat is not None:
        _heartbeat.stop()
        _heartbeat = None
