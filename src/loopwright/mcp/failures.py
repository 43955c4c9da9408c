"""What went wrong with an MCP server, in words the model and the user can act on.

Plain functions of narrow arguments: the connection (:mod:`.connection`) decides *when*
a server failed; this module says *what* to tell about it, with secrets redacted.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import IO, Any

from loopwright.mcp.config import HttpServerConfig, SseServerConfig, StdioServerConfig
from loopwright.mcp.errors import LoginRequired
from loopwright.redact import redact_text

_STDERR_TAIL_CHARS = 800


@dataclass(frozen=True, slots=True)
class Failure:
    message: str
    needs_auth: bool = False  # a login is required: the server waits for one, not a fix
    show_log: bool = True  # the server's stderr may say more (not for a login or a cancel)


def describe_failure(
    exc: BaseException,
    config: StdioServerConfig | SseServerConfig | HttpServerConfig,
    *,
    connected: bool,
) -> Failure:
    """Why a connection ended, naming what to check (the command, the URL, the login)."""
    if isinstance(exc, asyncio.CancelledError):
        return Failure("the connection was cancelled", show_log=False)
    login = find_exception(exc, LoginRequired)
    if login is not None:
        return Failure(str(login), needs_auth=True, show_log=False)
    cause = innermost(exc)
    if isinstance(cause, ModuleNotFoundError) and (cause.name or "").startswith("mcp"):
        message = "the 'mcp' package is not installed; run: pip install 'loopwright[mcp]'"
        return Failure(message, show_log=False)
    detail = str(cause) or type(cause).__name__
    if isinstance(cause, FileNotFoundError) and isinstance(config, StdioServerConfig):
        return Failure(f"command not found: {config.command!r}; check the path and PATH")
    if connected:
        return Failure(f"the connection was lost: {detail}")
    if not isinstance(config, StdioServerConfig):
        return Failure(f"could not connect to {config.url}: {detail}")
    return Failure(f"the server did not start: {detail}; check its command, args and env")


def stderr_tail(stderr: IO[Any] | None) -> str:
    """The end of a stdio server's log, which usually says why it stopped."""
    if stderr is None:
        return ""
    try:
        # Only the end matters, and a chatty server's log can be long: read just the tail.
        stderr.flush()
        size = os.fstat(stderr.fileno()).st_size
        with open(stderr.fileno(), "rb", closefd=False) as raw:
            raw.seek(max(0, size - 4 * _STDERR_TAIL_CHARS))
            text = raw.read().decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        return ""
    return f"server stderr: {text[-_STDERR_TAIL_CHARS:]}" if text else ""


def unavailable_message(server: str, error: str | None) -> str:
    return (
        f"MCP server {server!r} is not available: {error or 'not connected'}. "
        "Its tools cannot be used in this session; continue without them or ask the user "
        "to fix the server configuration."
    )


def timeout_message(server: str, label: str, seconds: float | None) -> str:
    allowed = f"{seconds:g} s" if seconds is not None else "the time allowed"
    return (
        f"MCP {label} on server {server!r} did not answer within "
        f"{allowed}; try smaller input or another approach."
    )


def call_failed_message(
    server: str, label: str, exc: BaseException, *, allow_sampling: bool
) -> str:
    message = redact_text(f"MCP {label} on server {server!r} failed: {exc}")
    if "sampling" in str(exc).lower() and not allow_sampling:
        # The server wanted the client's model; that is the user's call, off by default.
        message += (
            ". It needs MCP sampling, which is off: continue without it, or ask the user "
            "to allow it (Options(mcp_sampling=True), --mcp-sampling)"
        )
    return message


def with_detail(message: str, detail: str) -> str:
    return f"{message} ({detail})" if detail else message


def connection_lost(exc: BaseException) -> bool:
    """The session's connection closed under a call (not the call's own failure)."""
    from mcp.client.subscriptions import SubscriptionLost
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if find_exception(exc, SubscriptionLost) is not None:
        return True
    error = find_exception(exc, MCPError)
    return isinstance(error, MCPError) and error.code == CONNECTION_CLOSED


def find_exception(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """An exception of ``kind`` anywhere in groups, causes and contexts of ``exc``."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, kind):
            return item
        if isinstance(item, BaseExceptionGroup):
            todo.extend(item.exceptions)
        todo.extend(e for e in (item.__cause__, item.__context__) if e is not None)
    return None


def innermost(exc: BaseException) -> BaseException:
    """The single real error inside nested exception groups (anyio task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
