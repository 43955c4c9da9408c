"""Session figures: append cost per message (flat from 10 to 10,000 messages), resume time
of a 10,000-message session, compaction time.

Run: ``python benchmarks/bench_sessions.py`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from loopwright.context import compact, estimate_tokens  # noqa: E402
from loopwright.messages import (  # noqa: E402
    AssistantMessage,
    ConversationMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.stores import JSONLStore, SessionRecorder, SQLiteStore, restore  # noqa: E402
from loopwright.stores.base import SessionStore, lock_for_writing  # noqa: E402
from loopwright.testing import FunctionModel, text  # noqa: E402

Row = tuple[str, str, str]
BIG = 10_000
OUTPUT = "x" * 2000  # a typical tool result


def _messages(count: int) -> list[ConversationMessage]:
    out: list[ConversationMessage] = [UserMessage("benchmark task")]
    n = 0
    while len(out) < count:
        call = ToolUseBlock(f"c{n}", "Read", {"file_path": f"/src/f{n}.py"})
        out.append(AssistantMessage([TextBlock("reading"), call], "scripted", Usage(1000, 50)))
        out.append(UserMessage([ToolResultBlock(call.id, OUTPUT)]))
        n += 1
    return out[:count]


async def _append_times(store: SessionStore, sid: str, count: int) -> list[float]:
    lock = await lock_for_writing(store, sid)  # as the loop does: one writer per session
    recorder = SessionRecorder(store, sid)
    times: list[float] = []
    for message in _messages(count):
        start = time.perf_counter()
        await recorder.message(message)
        times.append(time.perf_counter() - start)
    await store.sync()
    lock.release()
    return times


async def _append_rows(
    name: str, make: type[JSONLStore] | type[SQLiteStore], home: Path
) -> list[Row]:
    store = (
        make(home / name, cwd="/bench")
        if make is JSONLStore
        else make(home / f"{name}.db", cwd="/bench")
    )
    early: list[float] = []
    for session in range(30):  # many short sessions: appends number 1-10
        early.extend(await _append_times(store, f"short-{session}", 10))
    late = (await _append_times(store, "long", BIG))[-1000:]  # appends 9,001-10,000
    await store.aclose()
    at_10, at_10k = statistics.median(early) * 1e6, statistics.median(late) * 1e6
    return [
        (f"{name}: append per message, session of 10", f"{at_10:.1f} µs", "flat"),
        (f"{name}: append per message, at 10,000", f"{at_10k:.1f} µs", "flat"),
        (f"{name}: append cost ratio 10,000 / 10", f"{at_10k / at_10:.2f}x", "≈1 (O(1))"),
    ]


async def _resume_row(name: str, store: SessionStore) -> Row:
    samples: list[float] = []
    for _ in range(3):
        start = time.perf_counter()
        restored = restore(await store.load("long"))
        samples.append(time.perf_counter() - start)
        assert len(restored.messages) >= BIG  # plus a closing result for the last call
    await store.aclose()
    return (
        f"{name}: resume (load + restore) of 10,000 msgs",
        f"{min(samples) * 1e3:.0f} ms",
        "< 1 s",
    )


async def _sync_row(home: Path) -> Row:
    store = JSONLStore(home / "sync", cwd="/bench")
    recorder = SessionRecorder(store, "s")
    samples: list[float] = []
    for message in _messages(40):
        await recorder.message(message)
        start = time.perf_counter()
        await store.sync()
        samples.append(time.perf_counter() - start)
    await store.aclose()
    return (
        "jsonl: fdatasync at turn end",
        f"{statistics.median(samples) * 1e3:.2f} ms",
        "per turn",
    )


async def _compaction_rows() -> list[Row]:
    history = _messages(1001)  # 500 turns with 2 KB outputs
    model = FunctionModel(lambda _request: text("summary of 500 turns"), name="scripted")
    samples: dict[str, list[float]] = {"cleared": [], "summarised": []}
    for trigger, window in (("auto", 1_000_000), ("manual", 200_000)):
        for _ in range(5):
            start = time.perf_counter()
            result = await compact(history, model, window=window, trigger=trigger)  # type: ignore[arg-type]
            samples[result.stage].append(time.perf_counter() - start)
    start = time.perf_counter()
    tokens = estimate_tokens(history)
    estimate_ms = (time.perf_counter() - start) * 1e3
    return [
        (
            "compaction stage 1 (clear), 500 turns",
            f"{min(samples['cleared']) * 1e3:.1f} ms",
            "no model call",
        ),
        (
            "compaction stage 1+2 (summarise), 500 turns",
            f"{min(samples['summarised']) * 1e3:.1f} ms",
            "+ model latency",
        ),
        (f"token estimate of 500 turns ({tokens} tok)", f"{estimate_ms:.1f} ms", "-"),
    ]


async def _all() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="lw-bench-") as tmp:
        home = Path(tmp)
        rows += await _append_rows("jsonl", JSONLStore, home)
        rows += await _append_rows("sqlite", SQLiteStore, home)
        rows.append(await _resume_row("jsonl", JSONLStore(home / "jsonl", cwd="/bench")))
        rows.append(await _resume_row("sqlite", SQLiteStore(home / "sqlite.db", cwd="/bench")))
        rows.append(await _sync_row(home))
    rows += await _compaction_rows()
    return rows


def run() -> list[Row]:
    return asyncio.run(_all())


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'metric'.ljust(width)}  {'measured':>12}  target")
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>12}  {target}")


if __name__ == "__main__":
    print_table(run())
