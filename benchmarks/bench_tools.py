"""Tool benchmarks: the Grep tool against running rg directly, and Glob over 100,000 files.

Run alone with ``python benchmarks/bench_tools.py``; ``benchmarks/run.py`` collects ``run()``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from loopwright.tools.base import SessionState, ToolContext
from loopwright.tools.glob import GlobTool
from loopwright.tools.grep import GrepTool
from loopwright.tools.ripgrep import ripgrep_binary

GREP_TREE_FILES = 30_000
GLOB_TREE_FILES = 100_000
GREP_RUNS = 9
GLOB_RUNS = 5
LINE = "the quick brown fox jumps over the lazy dog while the build keeps running {n}\n"


def make_grep_tree(root: Path) -> None:
    """~30 lines per file; one file in 50 holds the needle."""
    for index in range(GREP_TREE_FILES):
        folder = root / f"d{index % 300:03}"
        folder.mkdir(exist_ok=True)
        body = "".join(LINE.format(n=n) for n in range(30))
        if index % 50 == 0:
            body += f"needle_{index} = find_me()\n"
        (folder / f"file{index:05}.py").write_text(body)


def make_glob_tree(root: Path) -> None:
    """Empty files over 1,000 directories in two levels; one in ten is a .py file."""
    for index in range(GLOB_TREE_FILES):
        folder = root / f"a{index % 40:02}" / f"b{index % 1000:03}"
        if index < 1000:
            folder.mkdir(parents=True, exist_ok=True)
        suffix = ".py" if index % 10 == 0 else ".txt"
        fd = os.open(folder / f"f{index:06}{suffix}", os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)


def interleaved_medians(
    direct: Callable[[], object], via_tool: Callable[[], Awaitable[object]], runs: int
) -> tuple[float, float]:
    """Median seconds of each, measured alternately so machine load affects both alike."""

    async def measure() -> tuple[float, float]:
        await via_tool()  # warm-up: page cache, rg binary lookup
        direct_times: list[float] = []
        tool_times: list[float] = []
        for _ in range(runs):
            start = time.perf_counter()
            direct()
            direct_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            await via_tool()
            tool_times.append(time.perf_counter() - start)
        return (statistics.median(direct_times), statistics.median(tool_times))

    return asyncio.run(measure())


async def median_seconds_async(measure: Callable[[], Awaitable[object]], runs: int) -> float:
    await measure()  # warm-up
    timings: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        await measure()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def rg_direct(*args: str) -> Callable[[], object]:
    binary = ripgrep_binary()
    assert binary is not None, "ripgrep is not installed"
    return lambda: subprocess.run([binary, *args], capture_output=True, check=False)


def grep_rows(root: Path) -> list[tuple[str, str, str]]:
    ctx = ToolContext(state=SessionState(cwd=root), tool_use_id="bench")
    searches: list[tuple[str, dict[str, object], list[str]]] = [
        (
            "files_with_matches",
            {"pattern": "needle_\\d+", "head_limit": 0},
            ["--files-with-matches", "-e", "needle_\\d+", "--", str(root)],
        ),
        (
            "content",
            {"pattern": "needle_\\d+", "output_mode": "content", "head_limit": 0},
            ["--sort=path", "-n", "-e", "needle_\\d+", "--", str(root)],
        ),
    ]
    rows: list[tuple[str, str, str]] = []
    for mode, tool_input, rg_args in searches:

        async def via_tool(tool_input: dict[str, object] = tool_input) -> object:
            return await GrepTool().call(dict(tool_input), ctx)

        direct, tool = interleaved_medians(rg_direct(*rg_args), via_tool, GREP_RUNS)
        label = f"Grep {mode}, {GREP_TREE_FILES:,} files"
        rows.append((f"{label}: rg directly (median)", f"{direct * 1000:.1f} ms", "-"))
        rows.append((f"{label}: Grep tool (median)", f"{tool * 1000:.1f} ms", "-"))
        rows.append((f"{label}: tool / rg", f"{tool / direct:.2f}x", "<= 1.2x"))
    return rows


def glob_rows(root: Path) -> list[tuple[str, str, str]]:
    ctx = ToolContext(state=SessionState(cwd=root), tool_use_id="bench")

    async def via_tool() -> object:
        return await GlobTool().call({"pattern": "**/*.py"}, ctx)

    seconds = asyncio.run(median_seconds_async(via_tool, GLOB_RUNS))
    label = f"Glob **/*.py over {GLOB_TREE_FILES:,} files (median)"
    return [(label, f"{seconds * 1000:.0f} ms", "< 1000 ms")]


def scratch_parent() -> str | None:
    """tmpfs when there is one: creating 130,000 files on a slow disk dwarfs the searches."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def run() -> list[tuple[str, str, str]]:
    parent = scratch_parent()
    with tempfile.TemporaryDirectory(prefix="loopwright-bench-tools-", dir=parent) as scratch:
        grep_root = Path(scratch) / "grep"
        grep_root.mkdir()
        make_grep_tree(grep_root)
        rows = grep_rows(grep_root)
        glob_root = Path(scratch) / "glob"
        glob_root.mkdir()
        make_glob_tree(glob_root)
        rows += glob_rows(glob_root)
    return rows


def main() -> int:
    rows = run()
    width = max(len(metric) for metric, _, _ in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>12}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>12}  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
