"""Many concurrent sessions in one process: wall time, sessions/s and peak RSS.

Each session runs three tool turns (a no-op @tool) and a final answer, with no transcript
and no settings files, all started at once with ``asyncio.gather``. Two model set-ups:

- a ScriptedModel per session (the loop alone, no I/O);
- one AnthropicModel the application built, with its own bounded httpx pool, shared by
  every session, against a FakeAnthropicServer on loopback (SSE over real HTTP through the
  official SDK; the server in a process of its own).

Model strings (``anthropic:…``, ``openai-chat:…``), which loopwright resolves to its own
shared clients, are measured by bench_fleet.py against the SPEC's 1,000-session target.

Plus, when the optional ``dbos`` package is installed, durable sessions on a SQLite system
database (every model and tool call checkpointed as a DBOS step), fewer of them: each step
is a committed write.

Each figure comes from a fresh process, so its peak RSS (VmHWM) is its own.
Run: ``python benchmarks/bench_concurrency.py [SESSIONS]``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
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
# If a full-size run against the fake server ever takes longer than this, the figure is
# taken at FALLBACK_SESSIONS instead (and the table says so).
FAKE_SERVER_BUDGET_SECONDS = 60.0
FALLBACK_SESSIONS = 200
# Connections the application's own pool keeps open to the fake server: bounded and
# reused, as an application sharing one provider would configure it.
POOL_SIZE = 32
DURABLE_SESSIONS = 50


# --------------------------------------------------------------------------- one process


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

    noop = noop_tool()

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


async def _fake_server_sessions(count: int) -> list[Any]:
    import httpx2

    from loopwright.client import run
    from loopwright.models.anthropic import AnthropicModel

    noop = noop_tool()
    with server_process(__file__, "anthropic") as base_url:
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


async def _durable_sessions(count: int) -> list[Any]:
    import shutil
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
        shutil.rmtree(directory, ignore_errors=True)  # the DBOS database and transcripts


def _import_before_timing(kind: str) -> None:
    """Modules load once per process, not once per session: keep them out of the timing
    (the anthropic SDK alone takes about a second to import)."""
    import importlib

    modules = {
        "scripted": ["loopwright.client", "loopwright.testing"],
        "fake-server": ["loopwright.client", "loopwright.models.anthropic", "httpx2"],
        "durable-sqlite": ["loopwright.client", "loopwright.durable", "loopwright.testing"],
    }[kind]
    for module in modules:
        importlib.import_module(module)


def _measure(kind: str, count: int) -> dict[str, Any]:
    sessions = {
        "scripted": _scripted_sessions,
        "fake-server": _fake_server_sessions,
        "durable-sqlite": _durable_sessions,
    }[kind]
    _import_before_timing(kind)
    started = time.perf_counter()
    results = asyncio.run(sessions(count))
    seconds = time.perf_counter() - started
    failed = failures(results)
    return {
        "sessions": count,
        "seconds": seconds,
        "failed": len(failed),
        "first_failure": failed[0].errors if failed else None,
        "peak_rss_mb": peak_rss_mb(),
    }


# --------------------------------------------------------------------------- the table


def _in_fresh_process(kind: str, count: int, timeout: float | None = None) -> dict[str, Any]:
    return in_fresh_process(__file__, kind, str(count), timeout=timeout)


def _rows(label: str, figures: dict[str, Any], target: str = "-") -> list[Row]:
    return rows(f"{figures['sessions']} concurrent sessions, {label}", figures, target)


def run(sessions: int = SESSIONS) -> list[Row]:
    table = _rows("ScriptedModel", _in_fresh_process("scripted", sessions))
    label = "one AnthropicModel -> FakeAnthropicServer"
    try:
        figures = _in_fresh_process("fake-server", sessions, FAKE_SERVER_BUDGET_SECONDS)
    except subprocess.TimeoutExpired:
        figures = _in_fresh_process("fake-server", FALLBACK_SESSIONS)
        label += f" (the {sessions}-session run exceeded {FAKE_SERVER_BUDGET_SECONDS:g} s)"
    return table + _rows(label, figures) + _durable_rows()


def _durable_rows() -> list[Row]:
    import importlib.util

    if importlib.util.find_spec("dbos") is None:
        return [("durable sessions on SQLite: skipped, dbos is not installed", "-", "-")]
    figures = _in_fresh_process("durable-sqlite", DURABLE_SESSIONS)
    steps = figures["sessions"] * (2 * TOOL_TURNS + 1)
    per_step_ms = figures["seconds"] / steps * 1000
    table = _rows("durable (DBOS, SQLite)", figures)
    table.insert(
        2,
        (
            f"{figures['sessions']} durable sessions: amortised wall time per checkpointed step",
            f"{per_step_ms:.1f} ms",
            "-",
        ),
    )
    return table


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve", "anthropic"]:
        serve("anthropic")
    elif len(sys.argv) == 4 and sys.argv[1] == "--measure":
        print(json.dumps(_measure(sys.argv[2], int(sys.argv[3]))))
    else:
        print_table(run(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS))
