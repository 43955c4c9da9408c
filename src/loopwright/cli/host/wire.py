"""NDJSON in and out: stdin lines read on a thread, stdout lines capped under 1 MiB.

The Python SDK refuses any stdout line over 1 MiB and parses every line that starts with
``{``, so nothing but these lines may reach stdout, and a line too long (a huge tool
result) is shrunk by cutting its longest strings, never split or dropped.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

MAX_LINE_BYTES = 1024 * 1024 - 1024  # under the SDKs' max_buffer_size, with room to spare
_CUT_MARKER = "\n[… cut by loopwright: the line would pass the 1 MiB stream-json limit]"


def encode_line(data: dict[str, Any], limit: int = MAX_LINE_BYTES) -> bytes:
    """One JSON line; the longest strings inside are shortened until it fits ``limit``."""
    line = json.dumps(data, ensure_ascii=False, default=str).encode()
    while len(line) + 1 > limit:
        excess = len(line) + 1 - limit
        if not _cut_longest(data, excess + len(_CUT_MARKER.encode()) + 64):
            break  # nothing left to cut (a line of a million keys): send it as it is
        line = json.dumps(data, ensure_ascii=False, default=str).encode()
    return line + b"\n"


def _cut_longest(data: Any, excess: int) -> bool:
    found: list[tuple[int, Any, Any]] = []

    def visit(container: Any) -> None:
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in items:
            if isinstance(value, str):
                if not found or len(value) > found[0][0]:
                    found[:] = [(len(value), container, key)]
            elif isinstance(value, dict | list):
                visit(value)

    visit(data)
    if not found or found[0][0] < 256:
        return False
    length, container, key = found[0]
    keep = max(0, length - max(excess, length // 4))
    container[key] = container[key][:keep] + _CUT_MARKER
    return True


class LineWriter:
    """Writes whole lines to stdout from the event loop's thread (one writer, no tearing)."""

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        self.stream = stream or sys.stdout.buffer

    def write(self, data: dict[str, Any]) -> None:
        self.stream.write(encode_line(data))
        self.stream.flush()


def claim_stdout() -> IO[bytes]:
    """The protocol's own handle on stdout; fd 1 itself then points at stderr.

    Whatever else writes to stdout — a stray print, a library's log, a child process that
    inherited fd 1 — lands on stderr, so the SDK's stream never carries a foreign line."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol, "wb")


def start_stdin_reader(
    loop: asyncio.AbstractEventLoop, deliver: Callable[[bytes | None], None]
) -> threading.Thread:
    """Read stdin lines on a daemon thread; ``deliver(None)`` at EOF (on the loop's thread).

    A thread works for every kind of stdin (pipe, file, socket, terminal); asyncio's pipe
    transports refuse regular files."""

    def read() -> None:
        stream = sys.stdin.buffer
        try:
            for line in iter(stream.readline, b""):
                loop.call_soon_threadsafe(deliver, line)
        except (OSError, ValueError):
            pass  # stdin closed under us: the same as EOF
        finally:
            try:
                loop.call_soon_threadsafe(deliver, None)
            except RuntimeError:
                pass  # the loop already ended

    thread = threading.Thread(target=read, name="loopwright-host-stdin", daemon=True)
    thread.start()
    return thread
