"""The scaffold the many-session benchmarks share (bench_fleet, bench_concurrency).

A fake provider server that answers each request from its own history (so interleaved
sessions each get TOOL_TURNS tool calls and then an answer), run in a process of its own;
a no-op tool; the peak RSS of this process; one measurement per fresh process; the rows
of the table. Not a benchmark itself: run.py only runs ``bench_*.py``.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, Literal

Row = tuple[str, str, str]
ServerKind = Literal["anthropic", "openai-chat"]

TOOL_TURNS = 3


def noop_tool() -> Any:
    from loopwright import tool

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    return noop


def _tool_results_so_far(kind: ServerKind, body: dict[str, Any]) -> int:
    messages = body.get("messages", [])
    if kind == "openai-chat":
        return sum(1 for m in messages if m.get("role") == "tool")
    return sum(
        1
        for message in messages
        for block in (message.get("content") or [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


def per_session_server(kind: ServerKind) -> Any:
    """A fake server of ``kind`` that serves any number of sessions at once."""
    from loopwright.models.scripted import text, tool_call
    from loopwright.testing.fake_anthropic import FakeAnthropicServer, stream_events
    from loopwright.testing.fake_openai import FakeOpenAIServer, chat_events

    base = FakeAnthropicServer if kind == "anthropic" else FakeOpenAIServer
    endpoint = "/v1/messages" if kind == "anthropic" else "/chat/completions"

    class PerSession(base):
        def handle(self, exchange: Any) -> None:
            if not exchange.request.path.endswith(endpoint):
                super().handle(exchange)
                return
            done = _tool_results_so_far(kind, exchange.body)
            step = tool_call("noop") if done < TOOL_TURNS else text("done")
            with self._lock:
                self.served += 1
                number = self.served
            if kind == "anthropic":
                exchange.send_sse(stream_events(step, number, "claude-fake"))
            else:
                exchange.send_sse(chat_events(step, number, "gpt-fake", include_usage=True))

    return PerSession()


def serve(kind: ServerKind) -> None:
    """Run a per-session server until stdin closes (the ``--serve`` side of server_process)."""
    with per_session_server(kind) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def server_process(script: str, kind: ServerKind) -> Iterator[str]:
    """``script --serve KIND`` in a process of its own, yielding its base URL: the server's
    request handling (pure Python, under a GIL of its own) would otherwise be measured as
    the client's."""
    server = subprocess.Popen(
        [sys.executable, script, "--serve", kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.communicate(input="", timeout=10)  # its stdin closing tells it to stop


def peak_rss_mb() -> float:
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the (larger) parent process.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def in_fresh_process(script: str, *args: str, timeout: float | None = None) -> dict[str, Any]:
    """``script --measure ARGS…`` in a fresh process (so its peak RSS is its own); the
    figures it prints as JSON on its last line."""
    output = subprocess.run(
        [sys.executable, script, "--measure", *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    ).stdout
    figures: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return figures


def failures(results: list[Any]) -> list[Any]:
    """The results that are not a success after exactly TOOL_TURNS tool turns."""
    return [r for r in results if r.subtype != "success" or r.num_turns != TOOL_TURNS]


def rows(prefix: str, figures: dict[str, Any], target: str = "-") -> list[Row]:
    """Wall time, sessions/s, per-turn overhead (when measured) and peak RSS."""
    count, seconds = figures["sessions"], figures["seconds"]
    failed = (
        f", {figures['failed']} FAILED: {figures['first_failure']}" if figures["failed"] else ""
    )
    table = [
        (f"{prefix}: wall time{failed}", f"{seconds:.2f} s", target),
        (f"{prefix}: sessions/s", f"{count / seconds:.0f}", "-"),
    ]
    if "p50_ms" in figures:
        overhead = f"{figures['p50_ms']:.1f} / {figures['p99_ms']:.1f} ms"
        table.append((f"{prefix}: per-turn overhead p50 / p99", overhead, "-"))
    table.append((f"{prefix}: peak RSS (VmHWM)", f"{figures['peak_rss_mb']:.0f} MB", target))
    return table


def print_table(table: list[Row]) -> None:
    width = max(len(r[0]) for r in table)
    print(f"{'metric'.ljust(width)}  {'measured':>18}  target")
    for metric, value, target in table:
        print(f"{metric.ljust(width)}  {value:>18}  {target}")
