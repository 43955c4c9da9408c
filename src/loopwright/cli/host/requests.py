"""The SDK → CLI control requests besides ``initialize``: one handler per subtype.

Each returns the success response's body or raises :class:`RequestFailed`, whose text the
SDK raises from the awaiting call. A subtype without a handler is answered with an error
naming it, never left without an answer (the SDK would wait 60 s for it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from loopwright.types import PERMISSION_MODES

if TYPE_CHECKING:
    from loopwright.cli.host.serve import Host


class RequestFailed(Exception):
    """The request cannot be carried out; the text says why and what to do instead."""


Handler = Callable[["Host", dict[str, Any]], Awaitable[dict[str, Any]]]


async def interrupt(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    host.interrupt()
    return {"still_queued": []}


async def set_permission_mode(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    mode = str(request.get("mode"))
    mode = "default" if mode == "auto" else mode
    if mode not in PERMISSION_MODES:
        raise RequestFailed(
            f"unknown permission mode {mode!r}; use one of {', '.join(PERMISSION_MODES)}"
        )
    if mode == "bypassPermissions" and not host.bypass_allowed:
        raise RequestFailed(
            "bypassPermissions was refused: start the session with "
            "--dangerously-skip-permissions or --allow-dangerously-skip-permissions to allow it"
        )
    await host.set_permission_mode(mode)  # pyright: ignore[reportArgumentType]
    return {"mode": mode}


async def set_model(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    model = request.get("model")
    await host.set_model(str(model) if model else None)
    return {}


async def get_context_usage(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    client = host.require_client("get_context_usage")
    usage = client.get_context_usage()
    tokens, window = int(usage["tokens"]), int(usage["window"])
    return {
        "categories": [{"name": "Messages", "tokens": tokens, "color": "default"}],
        "totalTokens": tokens,
        "maxTokens": window,
        "rawMaxTokens": window,
        "percentage": round(100 * tokens / window, 2) if window else 0,
        "model": usage["model"],
        "isAutoCompactEnabled": True,
        "autoCompactThreshold": host.options.compaction_threshold,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
        "messages": usage["messages"],
    }


async def mcp_status(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    if host.client is None:
        names = [*host.options.mcp_servers, *host.applied.sdk_servers]
        return {"mcpServers": [{"name": n, "status": "pending", "tools": []} for n in names]}
    agent = host.client.session.agent
    servers: list[dict[str, Any]] = []
    for status in agent.mcp_status:
        name = str(status.get("name"))
        prefix = f"mcp__{name}__"
        tools = [{"name": t[len(prefix) :]} for t in agent.tools if t.startswith(prefix)]
        entry: dict[str, Any] = {"name": name, "status": status.get("status"), "tools": tools}
        entry["scope"] = "sdk" if name in host.applied.sdk_servers else "dynamic"
        if status.get("error"):
            entry["error"] = status["error"]
        servers.append(entry)
    return {"mcpServers": servers}


async def rewind_files(host: Host, request: dict[str, Any]) -> dict[str, Any]:
    client = host.require_client("rewind_files")
    try:
        restored = await client.rewind_files(str(request.get("user_message_id")))
    except Exception as exc:
        raise RequestFailed(str(exc)) from exc
    return {"files_changed": [str(p) for p in restored]}


HANDLERS: dict[str, Handler] = {
    "interrupt": interrupt,
    "set_permission_mode": set_permission_mode,
    "set_model": set_model,
    "get_context_usage": get_context_usage,
    "mcp_status": mcp_status,
    "rewind_files": rewind_files,
}


def unsupported(subtype: str) -> str:
    return (
        f"loopwright's host does not support the {subtype!r} control request; the session "
        "goes on without it (supported: initialize, " + ", ".join(HANDLERS) + ")"
    )
