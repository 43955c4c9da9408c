"""Starting DBOS for durable sessions: one call, with the system database's URL.

``sqlite:///path/to/file.db`` keeps everything on one machine; ``postgresql://...`` lets
workers on many machines share the queue. Launching also recovers: the sessions this
executor had in flight when it last died are resumed at their last completed step.
"""

from __future__ import annotations

from dbos import DBOS, DBOSConfig

# Importing session registers the workflow, which must happen before DBOS launches, or
# recovery would find pending sessions it does not know how to run.
from .session import SESSION_QUEUE_NAME

DEFAULT_APP_NAME = "loopwright"


async def launch_durable(
    system_database_url: str,
    *,
    app_name: str = DEFAULT_APP_NAME,
    executor_id: str | None = None,
    log_level: str = "WARNING",
    sessions_per_worker: int | None = 100,
) -> DBOS:
    """Configure and launch DBOS; pending sessions of this executor resume now.

    ``executor_id`` names this worker; a restarted worker must reuse its ID to pick up
    its own sessions (DBOS's default, "local", suits a single process).
    ``sessions_per_worker`` caps how many queued sessions this process runs at once.
    """
    config: DBOSConfig = {
        "name": app_name,
        "system_database_url": system_database_url,
        "log_level": log_level,
    }
    if executor_id is not None:
        config["executor_id"] = executor_id
    dbos = DBOS(config=config)
    DBOS.launch()
    await DBOS.register_queue_async(SESSION_QUEUE_NAME, worker_concurrency=sessions_per_worker)
    return dbos


def shutdown_durable() -> None:
    """Stop DBOS's background work; sessions still running resume at the next launch."""
    DBOS.destroy()
