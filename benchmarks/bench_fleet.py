"""Running many sessions: 1,000 at once through model strings, and on the PostgreSQL store.

Three set-ups, each in a fresh process (so its peak RSS, VmHWM, is its own):

- ``anthropic:`` model strings against a FakeAnthropicServer (official SDK, SSE on
  loopback), one string per session, resolved by loopwright as an application would;
- ``openai-chat:`` model strings against a FakeOpenAIServer (Chat Completions);
- a ScriptedModel per session with transcripts in the JSONL store, then in PostgreSQL
  through a pool of 20 connections (skipped when no PostgreSQL server binaries are
  installed).

Each session makes three tool turns (a no-op read-only @tool) and a final answer. The
fake servers answer from each request's own history and run in a process of their own.
Per-turn overhead is what a session spent outside model calls, per model call:
``(duration_ms - duration_api_ms) / model calls``, under the load of all the others.
Run: ``python benchmarks/bench_fleet.py [SESSIONS]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _many_sessions import (
    TOOL_TURNS,
    Row,
    failures,
    in_fresh_process,
    noop_tool,
    peak_rss_mb,
    print_table,
    rows,
    serve,
    server_process,
)

SESSIONS = 1000
POOL_SIZE = 20
BUDGET_SECONDS = 120.0
TARGET = "<= 5 s, <= 200 MB (SPEC §11)"


# --------------------------------------------------------------------------- PostgreSQL


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(candidates[-1]) if candidates else None


@contextlib.contextmanager
def _postgres() -> Iterator[str | None]:
    """A throwaway server on a free port (as the ``postgres`` user under root), or None."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        yield None
        return
    base = Path(tempfile.mkdtemp(prefix="bench-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = str(base / "data")
    subprocess.run(
        [*as_user, initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"],
        check=True,
        capture_output=True,
    )
    opts = f"-h 127.0.0.1 -p {port} -k {base} -F -c max_connections=100"
    subprocess.run(
        [*as_user, pg_ctl, "-D", data, "-o", opts, "-l", str(base / "log"), "-w", "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


# --------------------------------------------------------------------------- one process


def _options(model: Any, store: str | None, noop: Any) -> Any:
    from loopwright import Options

    return Options(
        model=model,
        tools=[noop],
        allowed_tools=["noop"],
        setting_sources=[],
        persist_session=store is not None,
        session_store=store,
    )


async def _sessions(kind: str, count: int, target: str) -> list[Any]:
    from loopwright.client import run

    noop = noop_tool()  # defined once, as an application defines its tools
    if kind in ("postgres-store", "jsonl-store"):
        from loopwright.testing import ScriptedModel, text, tool_call

        def model() -> Any:
            return ScriptedModel([tool_call("noop")] * TOOL_TURNS + [text("done")])

        return await asyncio.gather(
            *(run("go", _options(model(), target, noop)) for _ in range(count))
        )
    string = (
        "anthropic:claude-fake"
        if kind == "anthropic"
        else f"openai-chat:gpt-fake?base_url={target}"
    )
    return await asyncio.gather(*(run("go", _options(string, None, noop)) for _ in range(count)))


def _measure(kind: str, count: int, target: str) -> dict[str, Any]:
    import loopwright.client  # noqa: F401 - imports stay out of the timing

    if kind == "anthropic":
        import anthropic  # noqa: F401

        os.environ.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=target)
    elif kind == "openai-chat":
        import openai  # noqa: F401

        os.environ["OPENAI_API_KEY"] = "bench"
    elif kind == "postgres-store":
        os.environ["LOOPWRIGHT_PG_POOL_SIZE"] = str(POOL_SIZE)
    started = time.perf_counter()
    results = asyncio.run(_sessions(kind, count, target))
    seconds = time.perf_counter() - started
    failed = failures(results)
    overheads = sorted(
        (r.duration_ms - r.duration_api_ms) / (TOOL_TURNS + 1) for r in results if not r.is_error
    )
    return {
        "sessions": count,
        "seconds": seconds,
        "failed": len(failed),
        "first_failure": failed[0].errors if failed else None,
        "peak_rss_mb": peak_rss_mb(),
        "p50_ms": statistics.median(overheads) if overheads else float("nan"),
        "p99_ms": overheads[int(len(overheads) * 0.99) - 1] if overheads else float("nan"),
    }


# --------------------------------------------------------------------------- the table


def _in_fresh_process(kind: str, count: int, target: str) -> dict[str, Any]:
    return in_fresh_process(__file__, kind, str(count), target, timeout=BUDGET_SECONDS)


def _rows(label: str, figures: dict[str, Any], target: str) -> list[Row]:
    return rows(f"fleet: {figures['sessions']} sessions, {label}", figures, target)


def run(sessions: int = SESSIONS) -> list[Row]:
    table: list[Row] = []
    for kind, label in (("anthropic", "anthropic: string"), ("openai-chat", "openai-chat: string")):
        with server_process(__file__, kind) as base_url:
            try:
                table += _rows(label, _in_fresh_process(kind, sessions, base_url), TARGET)
            except subprocess.TimeoutExpired:
                table.append((f"fleet: {sessions} sessions, {label}", "timed out", TARGET))
    with tempfile.TemporaryDirectory(prefix="bench-jsonl-") as home:
        figures = _in_fresh_process("jsonl-store", sessions, f"jsonl:{home}")
        table += _rows("JSONL store (baseline for the next)", figures, "-")
    with _postgres() as url:
        label = f"PostgreSQL store, pool of {POOL_SIZE}"
        if url is None:
            table.append((f"fleet: {label}: skipped (apt-get install postgresql)", "-", "-"))
        else:
            table += _rows(label, _in_fresh_process("postgres-store", sessions, url), "0 errors")
    return table


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve("anthropic" if sys.argv[2] == "anthropic" else "openai-chat")
    elif len(sys.argv) == 5 and sys.argv[1] == "--measure":
        print(json.dumps(_measure(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    else:
        print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS))
