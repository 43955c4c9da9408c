"""Many concurrent sessions in one process: wall time, sessions/s and peak RSS.

Each session runs three tool turns (a no-op @tool) and a final answer, with no transcript
and no settings files, all started at once with ``asyncio.gather``. Two model set-ups:

- a ScriptedModel per session (the loop alone, no I/O);
- AnthropicModel against one FakeAnthropicServer on loopback (SSE over real HTTP through
  the official SDK; the server in a process of its own), the provider and its connection
  pool shared by every session as an application would share them.

Plus, when the optional ``dbos`` package is installed, durable sessions on a SQLite system
database (every model and tool call checkpointed as a DBOS step), fewer of them: each step
is a committed write.

Each figure comes from a fresh process, so its peak RSS (VmHWM) is its own.
Run: ``python benchmarks/bench_concurrency.py [SESSIONS]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

Row = tuple[str, str, str]

SESSIONS = 1000
TOOL_TURNS = 3
# If a full-size run against the fake server ever takes longer than this, the figure is
# taken at FALLBACK_SESSIONS instead (and the table says so).
FAKE_SERVER_BUDGET_SECONDS = 60.0
FALLBACK_SESSIONS = 200
# Connections kept open to the fake server. The standard library's server listens with a
# backlog of 5: hundreds of simultaneous connects overflow it and each dropped SYN costs a
# 1 s retransmit, so a bounded, reused pool measures the client rather than that backlog.
POOL_SIZE = 32
DURABLE_SESSIONS = 50


# --------------------------------------------------------------------------- one process


def _noop_tool() -> Any:
    from loopwright import tool

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    return noop


def _options(model: Any, noop: Any) -> Any:
    from loopwright import Options

    return Options(
        model=model,
        tools=[noop],
        allowed_tools=["noop"],
        setting_sources=[],
        persist_session=False,
    )


async def _scripted_sessions(count: int) -> list[Any]:
    from loopwright.client import run
    from loopwright.testing import ScriptedModel, text, tool_call

    noop = _noop_tool()

    def script() -> ScriptedModel:
        return ScriptedModel([tool_call("noop")] * TOOL_TURNS + [text("done")])

    return await asyncio.gather(*(run("go", _options(script(), noop)) for _ in range(count)))


class _SharedModel:
    """One provider for every session: sessions must not close the connection pool that
    the others are still using, so closing is left to whoever made it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        return str(self._inner.name)

    def stream(self, request: Any) -> AsyncIterator[Any]:
        return self._inner.stream(request)


def _fake_anthropic_server() -> Any:
    from loopwright.models.scripted import text, tool_call
    from loopwright.testing.fake_anthropic import FakeAnthropicServer, stream_events

    class PerSessionServer(FakeAnthropicServer):
        """Answers from each request's own history, not from one shared script, so that
        interleaved sessions each get three tool calls and then an answer."""

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

    return PerSessionServer()


async def _fake_server_sessions(count: int) -> list[Any]:
    import httpx2

    from loopwright.client import run
    from loopwright.models.anthropic import AnthropicModel

    noop = _noop_tool()
    with _server_process() as base_url:
        pool = httpx2.AsyncClient(
            limits=httpx2.Limits(max_connections=POOL_SIZE, max_keepalive_connections=POOL_SIZE)
        )
        provider = AnthropicModel(
            "claude-fake", api_key="test", base_url=base_url, http_client=pool
        )
        shared = _SharedModel(provider)
        try:
            return await asyncio.gather(*(run("go", _options(shared, noop)) for _ in range(count)))
        finally:
            await provider.aclose()


async def _model_string_sessions(count: int) -> list[Any]:
    """Every session names its model by string, as most users write it: each resolves its
    own provider, and the process's client pool gives them one shared SDK client."""
    import os

    from loopwright.client import run

    noop = _noop_tool()
    with _server_process() as base_url:
        os.environ["ANTHROPIC_API_KEY"] = "test"
        os.environ["ANTHROPIC_BASE_URL"] = base_url
        spec = "anthropic:claude-fake"
        return await asyncio.gather(*(run("go", _options(spec, noop)) for _ in range(count)))


@contextlib.contextmanager
def _server_process() -> Iterator[str]:
    """The fake server in a process of its own: its request handling (pure Python, under
    a GIL of its own) would otherwise be measured as the client's."""
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.communicate(input="", timeout=10)  # its stdin closing tells it to stop


def _serve() -> None:
    with _fake_anthropic_server() as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


async def _durable_sessions(count: int) -> list[Any]:
    import tempfile

    from loopwright.durable import durable_run, launch_durable, shutdown_durable
    from loopwright.testing import ScriptedModel, text, tool_call

    def options() -> Any:
        # A built-in tool: the workflow's options are stored pickled, which a @tool is not.
        from loopwright import Options

        script = [tool_call("Glob", pattern="*.nothing")] * TOOL_TURNS + [text("done")]
        return Options(
            model=ScriptedModel(script),
            tools=["Glob"],
            allowed_tools=["Glob"],
            setting_sources=[],
            cwd=directory,
        )

    directory = tempfile.mkdtemp(prefix="bench-durable-")
    await launch_durable(f"sqlite:///{directory}/dbos.sqlite")
    try:
        return await asyncio.gather(*(durable_run("go", options()) for _ in range(count)))
    finally:
        shutdown_durable()


def _peak_rss_mb() -> float:
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the (larger) parent process.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _import_before_timing(kind: str) -> None:
    """Modules load once per process, not once per session: keep them out of the timing
    (the anthropic SDK alone takes about a second to import)."""
    import importlib

    modules = {
        "scripted": ["loopwright.client", "loopwright.testing"],
        "fake-server": ["loopwright.client", "loopwright.models.anthropic", "httpx2"],
        "model-string": ["loopwright.client", "loopwright.models.anthropic", "httpx2"],
        "durable-sqlite": ["loopwright.client", "loopwright.durable", "loopwright.testing"],
    }[kind]
    for module in modules:
        importlib.import_module(module)


def _measure(kind: str, count: int) -> dict[str, Any]:
    sessions = {
        "scripted": _scripted_sessions,
        "fake-server": _fake_server_sessions,
        "model-string": _model_string_sessions,
        "durable-sqlite": _durable_sessions,
    }[kind]
    _import_before_timing(kind)
    started = time.perf_counter()
    results = asyncio.run(sessions(count))
    seconds = time.perf_counter() - started
    failed = [r for r in results if r.subtype != "success" or r.num_turns != TOOL_TURNS]
    return {
        "sessions": count,
        "seconds": seconds,
        "failed": len(failed),
        "first_failure": failed[0].errors if failed else None,
        "peak_rss_mb": _peak_rss_mb(),
    }


# --------------------------------------------------------------------------- the table


def _in_fresh_process(kind: str, count: int, timeout: float | None = None) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(count)],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    ).stdout
    figures: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return figures


def _rows(label: str, figures: dict[str, Any]) -> list[Row]:
    count, seconds = figures["sessions"], figures["seconds"]
    failures = (
        f", {figures['failed']} FAILED: {figures['first_failure']}" if figures["failed"] else ""
    )
    prefix = f"{count} concurrent sessions, {label}"
    return [
        (f"{prefix}: wall time{failures}", f"{seconds:.2f} s", "-"),
        (f"{prefix}: sessions/s", f"{count / seconds:.0f}", "-"),
        (f"{prefix}: peak RSS (VmHWM)", f"{figures['peak_rss_mb']:.0f} MB", "-"),
    ]


def run(sessions: int = SESSIONS) -> list[Row]:
    rows = _rows("ScriptedModel", _in_fresh_process("scripted", sessions))
    label = "AnthropicModel -> FakeAnthropicServer"
    target = f"{SESSIONS} sessions (SPEC §11)"
    try:
        figures = _in_fresh_process("fake-server", sessions, FAKE_SERVER_BUDGET_SECONDS)
    except subprocess.TimeoutExpired:
        figures = _in_fresh_process("fake-server", FALLBACK_SESSIONS)
        label += f" (the {sessions}-session run exceeded {FAKE_SERVER_BUDGET_SECONDS:g} s)"
    server_rows = _rows(label, figures)
    metric, value, _ = server_rows[0]
    server_rows[0] = (metric, value, target)
    strings = _in_fresh_process("model-string", sessions, FAKE_SERVER_BUDGET_SECONDS * 2)
    string_rows = _rows("'anthropic:' model strings (shared client pool)", strings)
    string_rows[0] = (string_rows[0][0], string_rows[0][1], "<= 5 s (SPEC §11)")
    string_rows[2] = (string_rows[2][0], string_rows[2][1], "<= 200 MB (SPEC §11)")
    return rows + server_rows + string_rows + _durable_rows()


def _durable_rows() -> list[Row]:
    import importlib.util

    if importlib.util.find_spec("dbos") is None:
        return [("durable sessions on SQLite: skipped, dbos is not installed", "-", "-")]
    figures = _in_fresh_process("durable-sqlite", DURABLE_SESSIONS)
    steps = figures["sessions"] * (2 * TOOL_TURNS + 1)
    per_step_ms = figures["seconds"] / steps * 1000
    rows = _rows("durable (DBOS, SQLite)", figures)
    rows.insert(
        2,
        (
            f"{figures['sessions']} durable sessions: amortised wall time per checkpointed step",
            f"{per_step_ms:.1f} ms",
            "-",
        ),
    )
    return rows


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>10}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>10}  {target}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        _serve()
    elif len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(_measure(sys.argv[2], int(sys.argv[3]))))
    else:
        print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS))
