"""Core loop figures: overhead per turn, cold start to ``init``, peak RSS of 50 turns.

Run: ``python benchmarks/bench_core.py`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time

Row = tuple[str, str, str]

TURNS = 1000
REPEATS = 5

_SESSION_SCRIPT = """
import asyncio, json, resource, sys, time
from loopwright import Options, query, tool
from loopwright.testing import ScriptedModel, text, tool_call

@tool(read_only=True)
def noop() -> str:
    "Do nothing."
    return "ok"

async def main(turns):
    model = ScriptedModel([tool_call("noop")] * turns + [text("done")])
    init_at = None
    async for message in query("go", Options(model=model, tools=[noop])):
        if init_at is None:
            init_at = time.time()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"init_at": init_at, "peak_rss_kb": peak_kb}))

asyncio.run(main(int(sys.argv[1])))
"""


async def _session_seconds(turns: int) -> float:
    from loopwright import Options, run, tool
    from loopwright.testing import ScriptedModel, text, tool_call

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    model = ScriptedModel([tool_call("noop")] * turns + [text("done")])
    started = time.perf_counter()
    result = await run("go", Options(model=model, tools=[noop]))
    elapsed = time.perf_counter() - started
    assert result.num_turns == turns, result
    return elapsed


def overhead_per_turn_ms() -> float:
    samples = [asyncio.run(_session_seconds(TURNS)) / TURNS * 1000 for _ in range(REPEATS)]
    return statistics.median(samples)


def _run_session_process(turns: int) -> dict[str, float]:
    started = time.time()
    output = subprocess.run(
        [sys.executable, "-c", _SESSION_SCRIPT, str(turns)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data = json.loads(output)
    data["cold_start_s"] = data["init_at"] - started
    return data


def run() -> list[Row]:
    per_turn = overhead_per_turn_ms()
    cold = statistics.median(_run_session_process(1)["cold_start_s"] for _ in range(REPEATS))
    peak_mb = _run_session_process(50)["peak_rss_kb"] / 1024
    return [
        (
            f"loop overhead per turn ({TURNS}-turn scripted session, no-op tool)",
            f"{per_turn:.3f} ms",
            "< 1 ms",
        ),
        ("cold start: process start → init message", f"{cold * 1000:.0f} ms", "< 150 ms"),
        ("peak RSS of a 50-turn session", f"{peak_mb:.1f} MB", "< 80 MB"),
    ]


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>14}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>14}  {target}")


if __name__ == "__main__":
    print_table(run())
