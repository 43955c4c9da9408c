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

Row = tuple[str, str, str]

SESSIONS = 1000
TOOL_TURNS = 3
POOL_SIZE = 20
BUDGET_SECONDS = 120.0
TARGET = "<= 5 s, <= 200 MB (SPEC §11)"


# --------------------------------------------------------------------------- fake servers


def _per_session_anthropic() -> Any:
    from loopwright.models.scripted import text, tool_call
    from loopwright.testing.fake_anthropic import FakeAnthropicServer, stream_events

    class PerSession(FakeAnthropicServer):
        def handle(self, exchange: Any) -> None:
            if not exchange.request.path.endswith("/v1/messages"):
                super().handle(exchange)
                return
            done = sum(
                1
                for message in exchange.body.get("messages", [])
                for block in (message.get("content") or [])
                if isinstance(block, dict) and block.get("type") == "tool_result"
            )
            step = tool_call("noop") if done < TOOL_TURNS else text("done")
            with self._lock:
                self.served += 1
                number = self.served
            exchange.send_sse(stream_events(step, number, "claude-fake"))

    return PerSession()


def _per_session_openai() -> Any:
    from loopwright.models.scripted import text, tool_call
    from loopwright.testing.fake_openai import FakeOpenAIServer, chat_events

    class PerSession(FakeOpenAIServer):
        def handle(self, exchange: Any) -> None:
            if not exchange.request.path.endswith("/chat/completions"):
                super().handle(exchange)
                return
            done = sum(1 for m in exchange.body.get("messages", []) if m.get("role") == "tool")
            step = tool_call("noop") if done < TOOL_TURNS else text("done")
            with self._lock:
                self.served += 1
                number = self.served
            exchange.send_sse(chat_events(step, number, "gpt-fake", include_usage=True))

    return PerSession()


def _serve(kind: str) -> None:
    server = _per_session_anthropic() if kind == "anthropic" else _per_session_openai()
    with server:
        print(server.base_url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def _server_process(kind: str) -> Iterator[str]:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.communicate(input="", timeout=10)


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


def _options(model: Any, store: str | None) -> Any:
    from loopwright import Options, tool

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

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

    if kind in ("postgres-store", "jsonl-store"):
        from loopwright.testing import ScriptedModel, text, tool_call

        def model() -> Any:
            return ScriptedModel([tool_call("noop")] * TOOL_TURNS + [text("done")])

        return await asyncio.gather(*(run("go", _options(model(), target)) for _ in range(count)))
    string = (
        "anthropic:claude-fake"
        if kind == "anthropic"
        else f"openai-chat:gpt-fake?base_url={target}"
    )
    return await asyncio.gather(*(run("go", _options(string, None)) for _ in range(count)))


def _peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


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
    failed = [r for r in results if r.subtype != "success" or r.num_turns != TOOL_TURNS]
    overheads = sorted(
        (r.duration_ms - r.duration_api_ms) / (TOOL_TURNS + 1) for r in results if not r.is_error
    )
    return {
        "sessions": count,
        "seconds": seconds,
        "failed": len(failed),
        "first_failure": failed[0].errors if failed else None,
        "peak_rss_mb": _peak_rss_mb(),
        "p50_ms": statistics.median(overheads) if overheads else float("nan"),
        "p99_ms": overheads[int(len(overheads) * 0.99) - 1] if overheads else float("nan"),
    }


# --------------------------------------------------------------------------- the table


def _in_fresh_process(kind: str, count: int, target: str) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(count), target],
        check=True,
        capture_output=True,
        text=True,
        timeout=BUDGET_SECONDS,
    ).stdout
    figures: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return figures


def _rows(label: str, figures: dict[str, Any], target: str) -> list[Row]:
    count, seconds = figures["sessions"], figures["seconds"]
    failures = (
        f", {figures['failed']} FAILED: {figures['first_failure']}" if figures["failed"] else ""
    )
    prefix = f"fleet: {count} sessions, {label}"
    return [
        (f"{prefix}: wall time{failures}", f"{seconds:.2f} s", target),
        (f"{prefix}: sessions/s", f"{count / seconds:.0f}", "-"),
        (
            f"{prefix}: per-turn overhead p50 / p99",
            f"{figures['p50_ms']:.1f} / {figures['p99_ms']:.1f} ms",
            "-",
        ),
        (f"{prefix}: peak RSS (VmHWM)", f"{figures['peak_rss_mb']:.0f} MB", target),
    ]


def run(sessions: int = SESSIONS) -> list[Row]:
    rows: list[Row] = []
    for kind, label in (("anthropic", "anthropic: string"), ("openai-chat", "openai-chat: string")):
        with _server_process(kind) as base_url:
            try:
                rows += _rows(label, _in_fresh_process(kind, sessions, base_url), TARGET)
            except subprocess.TimeoutExpired:
                rows.append((f"fleet: {sessions} sessions, {label}", "timed out", TARGET))
    with tempfile.TemporaryDirectory(prefix="bench-jsonl-") as home:
        figures = _in_fresh_process("jsonl-store", sessions, f"jsonl:{home}")
        rows += _rows("JSONL store (baseline for the next)", figures, "-")
    with _postgres() as url:
        label = f"PostgreSQL store, pool of {POOL_SIZE}"
        if url is None:
            rows.append((f"fleet: {label}: skipped (apt-get install postgresql)", "-", "-"))
        else:
            rows += _rows(label, _in_fresh_process("postgres-store", sessions, url), "0 errors")
    return rows


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>18}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>18}  {target}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        _serve(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "--measure":
        print(json.dumps(_measure(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    else:
        print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS))
