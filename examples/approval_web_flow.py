"""A web handler flow with a person in the loop: start → pending → approve → finished.

The agent may look up orders freely, but a refund waits for a person. ``POST /runs``
starts a run; it ends ``pending_approval`` and the handler answers at once with what waits.
Minutes or days later — from any process, since everything is in the session store —
``POST /runs/<session>/approvals/<tool_use_id>`` approves (or denies) and the run goes on
to its result. No process waits in between.

Run: ``.venv/bin/python examples/approval_web_flow.py`` (offline: a scripted model plays
the agent). It serves on 127.0.0.1, walks the flow with urllib and prints each step.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from loopwright import (
    ApprovalError,
    Options,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
    get_pending_approvals,
    query,
    tool,
)
from loopwright.testing import FunctionModel, text, tool_call

STORE = f"sqlite:{Path(tempfile.mkdtemp()) / 'sessions.db'}"


@tool(read_only=True)
def look_up_order(order_id: str) -> str:
    """Find an order."""
    return f"order {order_id}: 1 kettle, 39.00 EUR, delivered broken"


@tool(needs_approval=True)
def refund(order_id: str, amount_eur: float) -> str:
    """Refund an order (a person approves every refund)."""
    return f"refunded {amount_eur:.2f} EUR on order {order_id}"


def agent(request: Any) -> Any:
    """The offline stand-in for a model: look up, refund, then report."""
    last = request.messages[-1]
    if not isinstance(last, UserMessage) or isinstance(last.content, str):
        return tool_call("look_up_order", order_id="A-17")
    [answer] = [b for b in last.content if isinstance(b, ToolResultBlock)]
    if str(answer.content).startswith("order A-17"):
        return tool_call("refund", order_id="A-17", amount_eur=39.0)
    return text(f"Done: {answer.content}")


def options(**extra: Any) -> Options:
    return Options(
        model=FunctionModel(agent),
        tools=[look_up_order, refund],
        permission_mode="bypassPermissions",  # refunds still wait: needs_approval
        session_store=STORE,
        setting_sources=[],
        **extra,
    )


async def run_to_result(prompt: str | None, opts: Options) -> dict[str, Any]:
    async for message in query(prompt, opts):
        if isinstance(message, ResultMessage):
            return reply(message)
    raise RuntimeError("the run ended without a result")


def reply(result: ResultMessage) -> dict[str, Any]:
    if result.subtype == "pending_approval":
        return {
            "session": result.session_id,
            "status": "pending",
            "pending": result.pending_approvals,
        }
    return {"session": result.session_id, "status": "finished", "result": result.result}


# ------------------------------------------------------------------------- handlers


def start(body: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(run_to_result(str(body["prompt"]), options()))


def pending(session_id: str) -> dict[str, Any]:
    calls = asyncio.run(get_pending_approvals(session_id, store=STORE))
    return {"session": session_id, "pending": [call.to_dict() for call in calls]}


def answer(session_id: str, tool_use_id: str, body: dict[str, Any]) -> dict[str, Any]:
    if body.get("decision") == "approve":
        decision: Any = PermissionResultAllow(updated_input=body.get("input"))
    else:
        decision = PermissionResultDeny(message=str(body.get("message") or "refused"))
    opts = options(resume=session_id, approvals={tool_use_id: decision})
    return asyncio.run(run_to_result(None, opts))


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = self.path.strip("/").split("/")  # runs/<session>/approvals
        self._send(200, pending(parts[1]))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        parts = self.path.strip("/").split("/")
        try:
            if parts == ["runs"]:
                self._send(201, start(body))
            else:  # runs/<session>/approvals/<tool_use_id>
                self._send(200, answer(parts[1], parts[3], body))
        except ApprovalError as exc:  # answered already, or not waiting: nothing ran
            self._send(409, {"error": str(exc)})

    def _send(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def call(base: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        status, run = call(base, "POST", "/runs", {"prompt": "Order A-17 arrived broken."})
        print("start:", status, run["status"], [c["tool_name"] for c in run["pending"]])
        session = run["session"]
        _, waiting = call(base, "GET", f"/runs/{session}/approvals")
        [refund_call] = waiting["pending"]
        print(
            "pending:", refund_call["tool_name"], refund_call["input"], "-", refund_call["reason"]
        )
        path = f"/runs/{session}/approvals/{refund_call['tool_use_id']}"
        status, done = call(base, "POST", path, {"decision": "approve"})
        print("approve:", status, done["status"], "-", done["result"])
        status, again = call(base, "POST", path, {"decision": "approve"})
        print("approve again:", status, again["error"].split(";")[0])
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
