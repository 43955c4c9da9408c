"""Durable sessions that wait for a person without holding a worker.

A durable session whose run defers a call ends its workflow with the ``pending_approval``
result: no worker is busy while it waits. An answer (``answer_in_fleet``, from the CLI or
any process that reaches the fleet's database) enqueues an *approval workflow* on the
session queue, so whichever worker is free resumes the session with the decisions.

The approval workflow's id is fixed by the session and the transcript entry it resumes
from, and a second enqueue of that id is rejected: of two approvers racing, exactly one
is taken, and a stale answer (the session moved on) is refused before anything runs. The
workflow resumes at that entry (``resume_at``), so a replay after a worker died branches
from the same point with the same answers, its completed steps not run again.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dbos import DBOS, DBOSClient, EnqueueOptions

from loopwright.errors import ApprovalError
from loopwright.options import Options
from loopwright.stores import open_store, restore
from loopwright.stores.approvals import PendingCall
from loopwright.types import ApprovalDecision, PermissionResultAllow

from .session import (
    SESSION_QUEUE_NAME,
    SESSION_WORKFLOW_NAME,
    OptionsSource,
    check_version,
    refused,
    resolve_options,
    run_session,
)
from .versioning import application_version

APPROVAL_WORKFLOW_NAME = "loopwright.session.approval"
_NAMES = [SESSION_WORKFLOW_NAME, APPROVAL_WORKFLOW_NAME]
_ID_TAKEN = frozenset({"DBOSWorkflowIDInUseError", "DBOSWorkflowConflictIDError"})


@DBOS.workflow(name=APPROVAL_WORKFLOW_NAME)
async def approval_workflow(
    session_id: str,
    resume_at: str,
    approvals: dict[str, ApprovalDecision],
    options: OptionsSource,
) -> dict[str, Any]:
    """Resume a waiting session with the answers; returns its next ResultMessage dict."""
    resolved = resolve_options(options)
    refusal = await check_version(resolved)
    if refusal is None:

        async def still_waiting() -> str | None:
            return await _stale(resolved, session_id, resume_at, approvals)

        refusal = await DBOS.run_step_async({"name": "loopwright.approval_check"}, still_waiting)
    if refusal is not None:
        return refused(refusal, session_id).to_dict()
    answered = dataclasses.replace(
        resolved, resume=session_id, resume_at=resume_at, approvals=approvals, session_id=session_id
    )
    result = await run_session(None, answered, session_id)
    return result.to_dict()


@dataclass(frozen=True, slots=True)
class Waiting:
    """A fleet session whose last run ended waiting for approval."""

    session_id: str
    calls: list[PendingCall]
    options: OptionsSource

    @property
    def since(self) -> float:
        return min((c.deferred_at for c in self.calls), default=time.time())

    @property
    def overdue(self) -> bool:
        now = time.time()
        return any(c.deadline is not None and c.deadline < now for c in self.calls)


async def waiting_sessions(client: DBOSClient) -> list[Waiting]:
    """Sessions of the fleet whose latest run ended ``pending_approval``."""
    statuses = await client.list_workflows_async(name=_NAMES, load_input=True, load_output=True)
    latest: dict[str, Any] = {}
    for status in statuses:  # oldest first
        session_id = _session_of(status)
        if session_id is not None:
            latest[session_id] = status
    found: list[Waiting] = []
    for session_id, status in latest.items():
        output = status.output
        if status.status != "SUCCESS" or not isinstance(output, dict):
            continue
        if output.get("subtype") != "pending_approval":
            continue
        calls = [PendingCall.from_dict(c) for c in output.get("pending_approvals") or []]
        found.append(Waiting(session_id, calls, _options_of(status)))
    return found


def _session_of(status: Any) -> str | None:
    output = status.output
    if isinstance(output, dict) and output.get("session_id"):
        return str(output["session_id"])
    args = (status.input or {}).get("args") if isinstance(status.input, dict) else None
    if status.name == APPROVAL_WORKFLOW_NAME and args:
        return str(args[0])
    return str(status.workflow_id) if status.name == SESSION_WORKFLOW_NAME else None


def _options_of(status: Any) -> OptionsSource:
    args = status.input["args"]
    return args[3] if status.name == APPROVAL_WORKFLOW_NAME else args[1]


async def answer_in_fleet(
    db: str, session_id: str, approvals: Mapping[str, ApprovalDecision]
) -> str:
    """Hand the answers to whichever worker is free; returns the approval workflow's id.

    Raises ApprovalError (nothing is enqueued) when the session does not wait for these
    calls, or another approver answered first."""
    client = DBOSClient(system_database_url=db)
    try:
        waiting = {w.session_id: w for w in await waiting_sessions(client)}
        found = waiting.get(session_id)
        if found is None:
            raise ApprovalError(
                f"fleet session {session_id} does not wait for approval (it runs, it "
                "finished, or it was answered already); nothing was enqueued — see "
                "`loopwright fleet status`"
            )
        return await _enqueue(client, found, dict(approvals))
    finally:
        client.destroy()


async def deny_overdue(db: str) -> list[str]:
    """Sessions whose approval deadline passed go on (their waiting calls denied)."""
    client = DBOSClient(system_database_url=db)
    woken: list[str] = []
    try:
        for found in await waiting_sessions(client):
            if found.overdue:
                try:
                    woken.append(await _enqueue(client, found, {}))
                except ApprovalError:
                    continue  # another worker woke it first
    finally:
        client.destroy()
    return woken


async def _enqueue(
    client: DBOSClient, found: Waiting, approvals: dict[str, ApprovalDecision]
) -> str:
    options = resolve_options(found.options)
    leaf = await _leaf(options, found.session_id)
    refusal = await _stale(options, found.session_id, leaf, approvals)
    if refusal is not None:
        raise ApprovalError(refusal)
    workflow_id = f"{found.session_id}:answer:{leaf}"
    enqueue: EnqueueOptions = {
        "workflow_name": APPROVAL_WORKFLOW_NAME,
        "queue_name": SESSION_QUEUE_NAME,
        "workflow_id": workflow_id,
        "workflow_id_reuse_policy": "reject",
        "app_version": application_version(),
    }
    try:
        await client.enqueue_async(enqueue, found.session_id, leaf, approvals, found.options)
    except Exception as exc:  # the id is taken: someone answered these calls already
        # DBOS raises DBOSWorkflowIDInUseError (not exported, so known by name) for it.
        if type(exc).__name__ not in _ID_TAKEN and "already in use" not in str(exc):
            raise
        raise ApprovalError(
            f"the calls of fleet session {found.session_id} were answered already (by "
            "another approver); nothing was enqueued"
        ) from exc
    return workflow_id


async def _leaf(options: Options, session_id: str) -> str:
    store = open_store(options.session_store, cwd=options.cwd)
    try:
        entries = await store.load(session_id)
    finally:
        if options.session_store is None or isinstance(options.session_store, str):
            await store.aclose()
    return restore(entries).last_uuid or ""


async def _stale(
    options: Options, session_id: str, resume_at: str, approvals: Mapping[str, ApprovalDecision]
) -> str | None:
    """Why these answers cannot apply at ``resume_at`` now (None: they can)."""
    store = open_store(options.session_store, cwd=options.cwd)
    try:
        entries = await store.load(session_id)
    finally:
        if options.session_store is None or isinstance(options.session_store, str):
            await store.aclose()
    restored = restore(entries)
    if restored.last_uuid != resume_at or restored.pending is None:
        return f"session {session_id} moved on since these calls waited; nothing was run"
    pending = restored.pending
    unknown = [key for key in approvals if pending.call(key) is None]
    if unknown:
        return (
            f"{', '.join(unknown)} is not waiting for approval in session {session_id} "
            f"(waiting: {', '.join(pending.ids)}); nothing was run"
        )
    now = time.time()
    for key, answer in approvals.items():
        call = pending.call(key)
        late = call is not None and call.deadline is not None and call.deadline < now
        if late and isinstance(answer, PermissionResultAllow):
            return f"the approval deadline of {key} has passed; it is denied, not run"
    return None
