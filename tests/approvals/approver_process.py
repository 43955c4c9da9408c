"""One process of a deferred-approval flow, run by the tests as a subprocess.

``start STORE CWD BATCH``: a run whose ``deploy`` call needs approval (BATCH ``one``: just
it; ``three``: a read before and after it) — prints its result as JSON and exits.
``answer STORE CWD SESSION DECISIONS``: resumes SESSION with DECISIONS (JSON: tool_use_id
→ {"behavior": "allow", "updated_input": …} | {"behavior": "deny", "message": …}), the
model answers "finished"; prints the result as JSON, or ``ERROR <type>: <message>``.
Every tool run appends a line to CWD/runs.log, so a test can count runs. With
``HOLD=1`` the deploy tool prints RUNNING and waits for a line on stdin.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from loopwright import (
    Options,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    query,
    tool,
)
from loopwright.models.scripted import ScriptedModel, Step, text, tool_calls

CWD = Path(sys.argv[3])


def _ran(line: str) -> None:
    with (CWD / "runs.log").open("a") as log:
        log.write(line + "\n")


@tool(needs_approval=True)
def deploy(target: str) -> str:
    """Deploy the service to a target."""
    if os.environ.get("HOLD") == "1":
        print("RUNNING", flush=True)
        sys.stdin.readline()
    _ran(f"deploy {target}")
    return f"deployed to {target}"


@tool(read_only=True)
def status(name: str) -> str:
    """Read a status."""
    _ran(f"status {name}")
    return f"{name} is green"


def _options(store: str, model: ScriptedModel, **extra: Any) -> Options:
    return Options(
        model=model,
        tools=[deploy, status],
        session_store=store,
        cwd=str(CWD),
        setting_sources=[],
        permission_mode="bypassPermissions",  # needs_approval still defers
        **extra,
    )


def _first_step(batch: str) -> Step:
    if batch == "one":
        return tool_calls([("deploy", {"target": "prod"})])
    return tool_calls(
        [
            ("status", {"name": "before"}),
            ("deploy", {"target": "prod"}),
            ("status", {"name": "after"}),
        ]
    )


def _decision(data: dict[str, Any]) -> PermissionResultAllow | PermissionResultDeny:
    if data["behavior"] == "allow":
        return PermissionResultAllow(updated_input=data.get("updated_input"))
    return PermissionResultDeny(message=data.get("message", ""))


async def _last(prompt: str | None, options: Options) -> ResultMessage:
    result = None
    async for message in query(prompt, options):
        if isinstance(message, ResultMessage):
            result = message
    assert result is not None
    return result


async def main() -> int:
    mode, store = sys.argv[1], sys.argv[2]
    if mode == "start":
        model = ScriptedModel([_first_step(sys.argv[4])])
        result = await _last("ship it", _options(store, model))
    else:
        decisions = {k: _decision(v) for k, v in json.loads(sys.argv[5]).items()}
        model = ScriptedModel([text("finished")])
        options = _options(store, model, resume=sys.argv[4], approvals=decisions)
        try:
            result = await _last(None, options)
        except Exception as exc:
            print(f"ERROR {type(exc).__name__}: {exc}", flush=True)
            return 3
    print(json.dumps(result.to_dict(), default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
