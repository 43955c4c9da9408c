"""Soak: N sessions one after another in one process, through every entry point.

A long-running service must stay flat: what one session allocates it must release. Each
entry point runs in a fresh process (``--measure ENTRY N``): N sequential sessions, each a
prompt with one tool call and an answer. Between session N/3 (caches warm) and session N
it measures the Python heap (tracemalloc, after a collection), RSS, open fds, threads and
live asyncio tasks; the table shows their growth per session. Targets: < 200 bytes of heap
per session, no fds, threads or tasks left behind.

``python benchmarks/run.py soak`` runs only this; ``SOAK_SESSIONS`` sets N (default 10,000;
about an hour on a shared 2-core machine, tracemalloc costing most of it; a durable
session, a DBOS workflow, takes ~0.17 s, so ``SOAK_DURABLE_SESSIONS`` defaults to 1,000).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _many_sessions import Row, noop_tool, serve, server_process

SESSIONS = int(os.environ.get("SOAK_SESSIONS", "10000"))
HEAP_TARGET_BYTES = 200
ENTRY_POINTS = ("run", "client", "claude_agent_sdk", "openai_agents", "http_anthropic", "durable")
# A durable session is a DBOS workflow on SQLite (~0.17 s each): fewer of them by default.
DURABLE_SESSIONS = int(os.environ.get("SOAK_DURABLE_SESSIONS", "1000"))
Session = Callable[[], Awaitable[None]]


def _options(model: Any, tool: Any, **extra: Any) -> Any:
    from loopwright import Options

    return Options(
        model=model,
        tools=[tool],
        setting_sources=[],
        persist_session=False,
        permission_mode="bypassPermissions",
        **extra,
    )


def _run_session(model_of: Callable[[], Any]) -> Session:
    from loopwright import run

    tool = noop_tool()

    async def one() -> None:
        result = await run("go", _options(model_of(), tool))
        assert result.subtype == "success", result

    return one


def _client_session() -> Session:
    from loopwright import Client
    from loopwright.testing import TestModel

    tool = noop_tool()

    async def one() -> None:
        async with Client(_options(TestModel(), tool)) as client:
            await client.query("go")
            async for _ in client.receive_response():
                pass

    return one


def _claude_session() -> Session:
    from loopwright.compat.claude_agent_sdk import (
        ClaudeAgentOptions,
        ResultMessage,
        create_sdk_mcp_server,
        query,
        tool,
    )
    from loopwright.testing import TestModel

    @tool("noop", "Do nothing.", {})
    async def noop(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "ok"}]}

    server = create_sdk_mcp_server("soak", tools=[noop])

    async def one() -> None:
        options = ClaudeAgentOptions(
            model=TestModel(),
            tools=[],
            mcp_servers={"soak": server},
            permission_mode="bypassPermissions",
            setting_sources=[],
        )
        last: Any = None
        async for message in query(prompt="go", options=options):
            last = message
        assert isinstance(last, ResultMessage) and not last.is_error, last

    return one


def _openai_session() -> Session:
    from loopwright.compat.openai_agents import Agent, Runner, function_tool
    from loopwright.testing import TestModel

    @function_tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    async def one() -> None:
        agent = Agent(name="soak", instructions="be brief", tools=[noop], model=TestModel())
        result = await Runner.run(agent, "go")
        assert result.final_output, result

    return one


def _durable_session() -> Session:
    import tempfile

    from loopwright import Options
    from loopwright.durable import durable_run, launch_durable

    directory = tempfile.mkdtemp(prefix="soak-durable-")
    options = Options(
        model="test",
        tools=["Glob"],
        setting_sources=[],
        persist_session=False,
        permission_mode="bypassPermissions",
        cwd=directory,
    )
    launched: list[bool] = []

    async def one() -> None:
        if not launched:
            await launch_durable(f"sqlite:///{directory}/dbos.sqlite", heartbeat=False)
            launched.append(True)
        result = await durable_run("go", options)
        assert result.subtype == "success", result

    return one


def _make(entry: str, base_url: str) -> Session:
    from loopwright.testing import TestModel

    match entry:
        case "run":
            return _run_session(TestModel)
        case "client":
            return _client_session()
        case "claude_agent_sdk":
            return _claude_session()
        case "openai_agents":
            return _openai_session()
        case "http_anthropic":
            return _run_session(lambda: f"anthropic:claude-fake?base_url={base_url}")
        case "durable":
            return _durable_session()
        case _:
            raise SystemExit(f"unknown entry point {entry!r}; use one of {ENTRY_POINTS}")


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _sample() -> dict[str, int]:
    gc.collect()
    return {
        "heap": tracemalloc.get_traced_memory()[0],
        "rss_kb": _rss_kb(),
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": threading.active_count(),
        "tasks": len(asyncio.all_tasks()),
    }


async def _measure(entry: str, sessions: int, base_url: str) -> dict[str, Any]:
    one = _make(entry, base_url)
    start_at = max(1, sessions // 3)
    tracemalloc.start()
    started = time.perf_counter()
    first: dict[str, int] = {}
    for index in range(1, sessions + 1):
        await one()
        if index == start_at:
            first = _sample()
    last = _sample()
    seconds = time.perf_counter() - started
    span = sessions - start_at or 1
    growth = {key: (last[key] - first[key]) / span for key in last}
    return {"entry": entry, "sessions": sessions, "seconds": seconds, "growth": growth}


def measure_in_process(entry: str, sessions: int, base_url: str) -> dict[str, Any]:
    return asyncio.run(_measure(entry, sessions, base_url))


def _row(figures: dict[str, Any]) -> Row:
    growth = figures["growth"]
    value = (
        f"{growth['heap']:+.0f} B heap, {growth['rss_kb'] * 1024:+.0f} B RSS, "
        f"{growth['fds']:+.3f} fds, {growth['threads']:+.3f} threads, "
        f"{growth['tasks']:+.3f} tasks ({figures['seconds']:.0f} s)"
    )
    flat = (
        growth["heap"] < HEAP_TARGET_BYTES
        and growth["fds"] <= 0
        and growth["threads"] <= 0
        and growth["tasks"] <= 0
    )
    target = f"< {HEAP_TARGET_BYTES} B, 0/0/0" + ("" if flat else "  OVER")
    return (f"soak {figures['entry']}: growth per session ({figures['sessions']})", value, target)


def run(sessions: int = SESSIONS, entries: tuple[str, ...] = ENTRY_POINTS) -> list[Row]:
    import subprocess
    import tempfile

    script = str(Path(__file__).resolve())
    rows: list[Row] = []
    with server_process(script, "anthropic") as base_url, tempfile.TemporaryDirectory() as home:
        # The Claude layer keeps transcripts under HOME; the fake server wants any key.
        env = {**os.environ, "HOME": home, "ANTHROPIC_API_KEY": "soak-fake-key"}
        for entry in entries:
            count = min(sessions, DURABLE_SESSIONS) if entry == "durable" else sessions
            print(f"  soak {entry}: {count} sessions …", file=sys.stderr, flush=True)
            output = subprocess.run(
                [sys.executable, script, "--measure", entry, str(count), base_url],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            ).stdout
            rows.append(_row(json.loads(output.strip().splitlines()[-1])))
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])  # type: ignore[arg-type]
    elif sys.argv[1:2] == ["--measure"]:
        entry, count, url = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        print(json.dumps(measure_in_process(entry, count, url)))
    else:
        for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else SESSIONS):
            print("  ".join(row))
