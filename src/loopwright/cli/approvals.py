"""``loopwright approvals list|approve|deny``: answer calls that wait for a person.

A run that deferred a call ended ``pending_approval``; from any shell, later, ``approve``
or ``deny`` resumes the session with the answer: the approved calls run here, the denied
ones are answered, and the loop goes on to its next result (printed). ``approve`` takes
the agent options of a normal run (``--model``, ``--session-store`` …), as resuming
does. Answering a call that no longer waits is an error and runs nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from loopwright.cli.agent_arguments import add_agent_arguments, options_from_args
from loopwright.client import query
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.options import Options
from loopwright.stores import PendingCall, get_pending_approvals, list_sessions, open_store
from loopwright.types import ApprovalDecision, PermissionResultAllow, PermissionResultDeny

EXIT_ERROR = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="loopwright approvals")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="calls waiting for approval")
    listing.add_argument("session_id", nargs="?", help="one session (default: all here)")
    listing.add_argument("--cwd")
    listing.add_argument("--session-store")
    listing.add_argument("--json", action="store_true", help="one JSON object per call")
    listing.add_argument("--fleet", metavar="DB", help="the fleet sessions of this database")
    for name, text in (("approve", "run the waiting call(s)"), ("deny", "refuse them")):
        answer = commands.add_parser(name, help=text, description=text)
        answer.add_argument("session_id")
        answer.add_argument("tool_use_id", nargs="?", help="one call (default: every one)")
        if name == "approve":
            answer.add_argument("--input", help="run with this JSON input instead")
            answer.add_argument(
                "--always", action="store_true", help="allow such calls for the session"
            )
        else:
            answer.add_argument("--message", default="", help="why (the model reads it)")
        answer.add_argument(
            "--fleet", metavar="DB", help="a fleet session: a free worker of this DB runs it"
        )
        answer.add_argument("--wait", action="store_true", help="with --fleet: print its result")
        add_agent_arguments(answer)
        answer.set_defaults(continue_conversation=False)
    return parser


def approvals_command(arguments: Sequence[str]) -> int:
    args = _parser().parse_args(list(arguments))
    try:
        if args.command == "list":
            return asyncio.run(_list_fleet(args) if args.fleet else _list(args))
        if args.fleet:
            return asyncio.run(_answer_fleet(args))
        args.resume = args.session_id  # a unique prefix is resolved like --resume's
        return asyncio.run(_answer(args, options_from_args(args)))
    except ConfigurationError as exc:
        print(f"loopwright approvals: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LoopwrightError as exc:
        print(f"loopwright approvals: {exc}", file=sys.stderr)
        return EXIT_ERROR


async def _list(args: argparse.Namespace) -> int:
    if args.session_id:
        ids = [args.session_id]
    else:
        store = open_store(args.session_store, cwd=args.cwd)
        try:
            ids = [info.session_id for info in await list_sessions(args.cwd, store=store)]
        finally:
            await store.aclose()
    for session_id in ids:
        calls = await get_pending_approvals(session_id, store=args.session_store, cwd=args.cwd)
        for call in calls:
            if args.json:
                print(json.dumps({"session_id": session_id, **call.to_dict()}, default=str))
            else:
                print(describe(session_id, call))
    return 0


async def _list_fleet(args: argparse.Namespace) -> int:
    from dbos import DBOSClient

    from loopwright.durable.approvals import waiting_sessions

    client = DBOSClient(system_database_url=args.fleet)
    try:
        waiting = await waiting_sessions(client)
    finally:
        client.destroy()
    for found in waiting:
        if args.session_id in (None, found.session_id):
            for call in found.calls:
                if args.json:
                    print(json.dumps({"session_id": found.session_id, **call.to_dict()}))
                else:
                    print(describe(found.session_id, call))
    return 0


async def _answer_fleet(args: argparse.Namespace) -> int:
    """The answer goes to the fleet's queue: whichever worker is free runs the rest."""
    from dbos import DBOSClient

    from loopwright.durable.approvals import answer_in_fleet, waiting_sessions

    client = DBOSClient(system_database_url=args.fleet)
    try:
        waiting = {w.session_id: w for w in await waiting_sessions(client)}
    finally:
        client.destroy()
    found = waiting.get(args.session_id)
    calls = found.calls if found is not None else []
    chosen = [c for c in calls if args.tool_use_id in (None, c.tool_use_id)] or calls
    decisions = {c.tool_use_id: _decision(args, c, len(chosen)) for c in chosen}
    if args.tool_use_id is not None and args.tool_use_id not in decisions:
        decisions = {
            args.tool_use_id: _decision(args, PendingCall(args.tool_use_id, "", {}, ""), 1)
        }
    workflow_id = await answer_in_fleet(args.fleet, args.session_id, decisions)
    if not args.wait:
        print(f"answered: a worker of {args.fleet} goes on with it ({workflow_id})")
        return 0
    client = DBOSClient(system_database_url=args.fleet)
    try:
        handle: Any = await client.retrieve_workflow_async(workflow_id)
        record = await handle.get_result()
    finally:
        client.destroy()
    result = ResultMessage.from_dict(record)
    text = result.result if result.result is not None else "; ".join(result.errors)
    print(text, file=sys.stderr if result.is_error else sys.stdout)
    return EXIT_ERROR if result.is_error else 0


def describe(session_id: str, call: PendingCall) -> str:
    """One waiting call, for a person deciding about it."""
    waited = time.time() - call.deferred_at
    shown = json.dumps(call.input, ensure_ascii=False)
    shown = shown if len(shown) <= 200 else shown[:200] + "…"
    lines = [
        f"{session_id}  {call.tool_use_id}  {call.tool_name} {shown}",
        f"    why: {call.reason}; waiting {int(waited)} s",
    ]
    if call.suggestion:
        lines.append(f"    --always would allow: {call.suggestion}")
    if call.deadline is not None:
        lines.append(f"    denied if unanswered in {int(call.deadline - time.time())} s")
    return "\n".join(lines)


async def _answer(args: argparse.Namespace, options: Options) -> int:
    session_id = options.resume or args.session_id
    pending = await get_pending_approvals(session_id, store=args.session_store, cwd=args.cwd)
    chosen = [c for c in pending if args.tool_use_id in (None, c.tool_use_id)]
    if not chosen:
        waiting = ", ".join(c.tool_use_id for c in pending) or "none"
        raise LoopwrightError(
            f"nothing to answer: {args.tool_use_id or 'no call'} is not waiting in session "
            f"{session_id} (waiting: {waiting}); see `loopwright approvals list`"
        )
    decisions = {call.tool_use_id: _decision(args, call, len(chosen)) for call in chosen}
    options = dataclasses.replace(options, approvals=decisions)
    result: ResultMessage | None = None
    async for message in query(None, options):
        if isinstance(message, ResultMessage):
            result = message
    assert result is not None
    if result.subtype == "pending_approval":
        for item in result.pending_approvals:
            print(describe(result.session_id, PendingCall.from_dict(item)))
        return 0
    text = result.result if result.result is not None else "; ".join(result.errors)
    print(text, file=sys.stderr if result.is_error else sys.stdout)
    return EXIT_ERROR if result.is_error else 0


def _decision(args: argparse.Namespace, call: PendingCall, count: int) -> ApprovalDecision:
    if args.command == "deny":
        return PermissionResultDeny(message=args.message or "the approver denied it")
    updated = None
    if args.input is not None:
        if count != 1:
            raise ConfigurationError("--input rewrites one call: name it (TOOL_USE_ID)")
        try:
            updated = json.loads(args.input)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(f"--input is not JSON ({exc}); pass a JSON object") from exc
        if not isinstance(updated, dict):
            raise ConfigurationError('--input must be a JSON object, e.g. \'{"target": "x"}\'')
    rules = [call.suggestion] if args.always and call.suggestion else None
    return PermissionResultAllow(updated_input=updated, updated_permissions=rules)
