"""One loopwright session as a DBOS workflow, and the ways to start one.

The workflow builds the session, puts each model call and each tool call behind
a DBOS step, and runs the ordinary agent loop. When a crashed process comes back (or a live
worker takes over a dead one's sessions), DBOS runs the workflow again from the top: every
step that had completed returns its recorded output instead of running, so the loop walks
back to where it stopped and goes on from there.

The session is a full session: its transcript goes to the configured session store as it
happens (resume, fork, export and ``follow_session`` work on it). A replay writes the
transcript again from the start, after removing what the dead run had written, so the
store never holds two copies of a turn.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import time
from typing import Any

from dbos import DBOS, Queue, SetWorkflowID, WorkflowHandleAsync

from loopwright.client import open_session
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.loop.run import agent_loop
from loopwright.messages import ResultMessage, Usage, UserMessage
from loopwright.options import Options
from loopwright.session.assemble import resolve_model
from loopwright.stores import open_store

from .model import DurableModel
from .settings import worker_settings
from .tools import durable_tools
from .versioning import VERSION_STEP_NAME, session_fingerprint, version_mismatch

SESSION_WORKFLOW_NAME = "loopwright.session"

# The default queue (registered by launch_durable): every process that launched DBOS on the
# same system database takes sessions from it.
SESSION_QUEUE_NAME = "loopwright_sessions"

# Options as given to a durable run: the Options themselves (stored pickled, so their
# callables must be importable module-level functions), or "package.module:attribute"
# naming Options or a function returning them, for options no pickle can carry (@tool
# objects, closures): each worker rebuilds them from its own code.
OptionsSource = Options | str


@DBOS.workflow(name=SESSION_WORKFLOW_NAME)
async def session_workflow(prompt: str, options: OptionsSource) -> dict[str, Any]:
    """The workflow: returns the run's ResultMessage as a dict."""
    resolved = resolve_options(options)
    workflow_id = DBOS.workflow_id
    refusal = await check_version(resolved)
    if refusal is not None:
        return refused(refusal, resolved.session_id or workflow_id).to_dict()
    started = await _session_started_at()
    result = await run_session(prompt, resolved, workflow_id)
    # A session taken over by another worker replays its completed steps in moments: its
    # duration is counted from the first start, not from the takeover.
    whole_ms = int((time.time() - started) * 1000)
    return dataclasses.replace(result, duration_ms=max(result.duration_ms, whole_ms)).to_dict()


async def _session_started_at() -> float:
    """When the session first started (wall clock), the same on every replay."""

    async def now() -> float:
        return time.time()

    return await DBOS.run_step_async({"name": "loopwright.started_at"}, now)


async def check_version(options: Options) -> str | None:
    """Record which code runs this session; on a replay, compare (None: go on)."""
    current = session_fingerprint(options)

    async def record_version() -> dict[str, str]:
        return current

    recorded = await DBOS.run_step_async({"name": VERSION_STEP_NAME}, record_version)
    mismatch = version_mismatch(recorded, current)
    if mismatch is None or worker_settings().replay_other_versions:
        return None
    return mismatch


def refused(reason: str, session_id: str | None) -> ResultMessage:
    return ResultMessage(
        subtype="error_during_execution",
        is_error=True,
        num_turns=0,
        session_id=session_id or "",
        duration_ms=0,
        duration_api_ms=0,
        total_cost_usd=None,
        usage=Usage(),
        errors=[reason],
    )


async def _first_run_of(step_name: str) -> bool:
    """True the first time the session gets here; False when a replay passes again."""
    ran_live = False

    async def mark() -> bool:
        nonlocal ran_live
        ran_live = True
        return True

    await DBOS.run_step_async({"name": step_name}, mark)
    return ran_live


async def run_session(
    prompt: str | None, options: Options, workflow_id: str | None
) -> ResultMessage:
    """The session's run (``prompt`` None: it goes on from its answered approvals)."""
    provider = resolve_model(options.model)
    session_id = options.session_id or workflow_id
    options = dataclasses.replace(options, model=provider, session_id=session_id)
    # A resumed session's transcript holds earlier runs too: it is never dropped, so a
    # replay of one may repeat this run's messages in it.
    fresh = options.resume is None and not options.continue_conversation
    replaying = (
        options.persist_session
        and fresh
        and session_id is not None
        and not await _first_run_of("loopwright.transcript_start")
    )
    if replaying and session_id is not None:
        await _forget_transcript(options, session_id)
    session = await open_session(options)
    # Each model call and each tool call becomes a step: the same Agent with wrapped parts.
    agent = session.agent
    tools = durable_tools(
        dict(agent.tools), options.tool_timeout_seconds, worker_settings().idempotent_tools
    )
    # Not use_agent(): the durable model wraps the current one, so nothing is retired.
    session.agent = dataclasses.replace(
        agent, model=DurableModel(agent.model, provider), tools=tools
    )
    result: ResultMessage | None = None
    try:
        user = UserMessage(prompt) if prompt is not None else None
        async for message in agent_loop(session, user):
            if isinstance(message, ResultMessage):
                result = message
    finally:
        await session.aclose()
    if result is None:  # pragma: no cover - the loop always ends with a result
        raise LoopwrightError("the durable run produced no result message")
    return result


async def _forget_transcript(options: Options, session_id: str) -> None:
    """A replay writes the whole transcript again: drop what the dead run had written."""
    store = open_store(options.session_store, cwd=options.cwd)
    try:
        await store.delete(session_id)
    finally:
        if options.session_store is None or isinstance(options.session_store, str):
            await store.aclose()


def resolve_options(source: OptionsSource) -> Options:
    if isinstance(source, Options):
        return source
    module_name, _, attribute = source.partition(":")
    if not module_name or not attribute:
        raise ConfigurationError(
            f"options reference {source!r} must look like 'package.module:attribute'"
        )
    found: Any = getattr(importlib.import_module(module_name), attribute)
    value: Any = found() if callable(found) else found
    if not isinstance(value, Options):
        raise ConfigurationError(
            f"{source} gave {type(value).__name__}, not loopwright Options; point it at "
            "Options or at a function that returns them"
        )
    return value


def storable_options(source: OptionsSource) -> OptionsSource:
    """``source`` if DBOS can store it; else a ConfigurationError that says what to do, before
    anything is started (DBOS itself fails deep in serialisation with a bare traceback)."""
    if isinstance(source, str):
        return source
    try:
        pickle.dumps(source)
    except Exception as exc:
        raise ConfigurationError(
            f"these Options cannot be stored with a durable session ({type(exc).__name__}: "
            f"{exc}): a recovering worker must rebuild them. Use module-level functions "
            "instead of lambdas and closures, or pass 'package.module:attribute' naming "
            "Options (or a function returning them) instead of the Options object"
        ) from exc
    return source


async def start_session(
    prompt: str, options: OptionsSource, *, workflow_id: str | None = None
) -> WorkflowHandleAsync[dict[str, Any]]:
    """Start a durable session in this process; the handle's result is the ResultMessage
    dict. Starting again with the ID of a session that exists returns that session."""
    options = storable_options(options)
    if workflow_id is None:
        return await DBOS.start_workflow_async(session_workflow, prompt, options)
    with SetWorkflowID(workflow_id):
        return await DBOS.start_workflow_async(session_workflow, prompt, options)


async def durable_run(
    prompt: str, options: OptionsSource, *, workflow_id: str | None = None
) -> ResultMessage:
    """Like :func:`loopwright.client.run`, as a workflow that survives a crash."""
    handle = await start_session(prompt, options, workflow_id=workflow_id)
    return result_of(await handle.get_result())


async def enqueue_session(
    prompt: str,
    options: OptionsSource,
    *,
    workflow_id: str | None = None,
    queue_name: str = SESSION_QUEUE_NAME,
) -> WorkflowHandleAsync[dict[str, Any]]:
    """Put a session on a queue that every worker on the same system database serves."""
    options = storable_options(options)
    queue = await _queue(queue_name)
    if workflow_id is None:
        return await queue.enqueue_async(session_workflow, prompt, options)
    with SetWorkflowID(workflow_id):
        return await queue.enqueue_async(session_workflow, prompt, options)


async def _queue(name: str) -> Queue:
    queue = await DBOS.retrieve_queue_async(name)
    if queue is None:
        raise ConfigurationError(
            f"no DBOS queue named {name!r}: launch_durable() registers {SESSION_QUEUE_NAME!r}; "
            "register others with DBOS.register_queue() after launching"
        )
    return queue


async def session_result(workflow_id: str) -> ResultMessage:
    """Wait for a session started here or by any worker (after a recovery too)."""
    handle: WorkflowHandleAsync[dict[str, Any]] = await DBOS.retrieve_workflow_async(workflow_id)
    return result_of(await handle.get_result())


def result_of(record: dict[str, Any]) -> ResultMessage:
    return ResultMessage.from_dict(record)
