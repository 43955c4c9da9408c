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
import asyncio, json, sys, time
from loopwright import Options, query, tool
from loopwright.testing import ScriptedModel, text, tool_call

builtin_only = sys.argv[2] == "builtin"
if not builtin_only:
    @tool(read_only=True)
    def noop() -> str:
        "Do nothing."
        return "ok"

async def main(turns, builtin_only):
    if builtin_only:  # what `loopwright -p` does: no @tool, so pydantic is never imported
        steps, tools, allowed = [tool_call("Glob", pattern="*.nothing")], ["Glob"], ["Glob"]
    else:
        steps, tools, allowed = [tool_call("noop")], [noop], ["noop"]
    model = ScriptedModel(steps * turns + [text("done")])
    init_at = None
    options = Options(model=model, tools=tools, allowed_tools=allowed, setting_sources=[])
    async for message in query("go", options):
        if init_at is None:
            init_at = time.time()
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the (larger) parent process.
    peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status")
                   if line.startswith("VmHWM:"))
    print(json.dumps({"init_at": init_at, "peak_rss_kb": peak_kb}))

asyncio.run(main(int(sys.argv[1]), builtin_only))
"""


async def _session_seconds(turns: int, persist: bool) -> float:
    from loopwright import Options, run, tool
    from loopwright.testing import ScriptedModel, text, tool_call

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    model = ScriptedModel([tool_call("noop")] * turns + [text("done")])
    started = time.perf_counter()
    options = Options(
        model=model,
        tools=[noop],
        allowed_tools=["noop"],
        persist_session=persist,
        setting_sources=[],
    )
    result = await run("go", options)
    elapsed = time.perf_counter() - started
    assert result.num_turns == turns, result
    return elapsed


def overhead_per_turn_ms(*, persist: bool) -> float:
    samples = [asyncio.run(_session_seconds(TURNS, persist)) / TURNS * 1000 for _ in range(REPEATS)]
    return statistics.median(samples)


def _run_session_process(turns: int, kind: str = "tool") -> dict[str, float]:
    started = time.time()
    output = subprocess.run(
        [sys.executable, "-c", _SESSION_SCRIPT, str(turns), kind],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data = json.loads(output)
    data["cold_start_s"] = data["init_at"] - started
    return data


def _cold_start_ms(kind: str) -> float:
    samples = [_run_session_process(1, kind)["cold_start_s"] for _ in range(REPEATS)]
    return statistics.median(samples) * 1000


def run() -> list[Row]:
    in_memory = overhead_per_turn_ms(persist=False)
    persisted = overhead_per_turn_ms(persist=True)
    peak_mb = _run_session_process(50)["peak_rss_kb"] / 1024
    return [
        (
            f"loop overhead per turn ({TURNS} turns, no-op tool, no transcript)",
            f"{in_memory:.3f} ms",
            "< 1 ms",
        ),
        (
            f"loop overhead per turn ({TURNS} turns, JSONL transcript + fdatasync per turn)",
            f"{persisted:.3f} ms",
            "< 1 ms",
        ),
        (
            "cold start -> init, built-in tools only (as `loopwright -p`)",
            f"{_cold_start_ms('builtin'):.0f} ms",
            "< 150 ms",
        ),
        (
            "cold start -> init, with a @tool (imports pydantic)",
            f"{_cold_start_ms('tool'):.0f} ms",
            "< 150 ms",
        ),
        ("peak RSS of a 50-turn session (VmHWM)", f"{peak_mb:.1f} MB", "< 80 MB"),
    ]


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>14}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>14}  {target}")


if __name__ == "__main__":
    print_table(run())
