"""Per-turn cost of real providers over HTTP, against the zero-latency fake servers.

For each provider (Anthropic, OpenAI Responses, Chat Completions) a 200-turn session runs
through ``loopwright.client.run`` with the provider built as by default (our own HTTP
path, see ``models/_transport.py``; the SDK not imported) talking to its fake server on
127.0.0.1. The server runs in a child process, so its work does not
compete with the client for the GIL. Reported, as medians over a few sessions:

- the session's wall time per turn over HTTP;
- the model call inside it (``stream()`` until the final response: our wire conversion,
  HTTP on loopback, SSE parsing, the fake server's own time);
- the loop's share: the first minus the second, against the SPEC's < 1 ms target;
- the same session on ScriptedModel (no HTTP), for comparison.

Run: ``python benchmarks/bench_providers.py`` (or ``make bench`` for every benchmark).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

Row = tuple[str, str, str]

TURNS = 200
REPEATS = 3

# The fake server, scripted for REPEATS sessions, in a child process; prints its base URL.
_SERVER = """
import sys, time
from loopwright.models.scripted import text, tool_call
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

kind, turns, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cls = FakeAnthropicServer if kind == "anthropic" else FakeOpenAIServer
script = ([tool_call("noop")] * turns + [text("done")]) * repeats
with cls(script) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
"""


class _Timed:
    """Wraps a model to time each call from ``stream()`` to its final response."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.context_window = getattr(inner, "context_window", None)
        self.seconds: list[float] = []

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        from loopwright.models.base import ModelResponse

        started = time.perf_counter()
        async for event in self.inner.stream(request):
            if isinstance(event, ModelResponse):
                self.seconds.append(time.perf_counter() - started)
            yield event


def _providers() -> list[tuple[str, str, Callable[[str], Any]]]:
    from loopwright.models.anthropic import AnthropicModel
    from loopwright.models.openai_chat import OpenAIChatModel
    from loopwright.models.openai_responses import OpenAIResponsesModel

    return [
        (
            "anthropic",
            "anthropic",
            lambda url: AnthropicModel("claude-sonnet-5-5", api_key="bench", base_url=url),
        ),
        (
            "openai responses",
            "openai",
            lambda url: OpenAIResponsesModel("gpt-5.5", api_key="bench", base_url=url),
        ),
        (
            "openai chat",
            "openai",
            lambda url: OpenAIChatModel("gpt-5.5", api_key="bench", base_url=url),
        ),
    ]


def _noop_tool() -> Any:
    from loopwright import tool

    @tool(read_only=True)
    def noop() -> str:
        """Do nothing."""
        return "ok"

    return noop


async def _session_ms(model: Any) -> float:
    from loopwright.client import run
    from loopwright.options import Options

    started = time.perf_counter()
    result = await run(
        "go",
        # No transcript, no settings files: the same footing as the in-memory scripted
        # figure in bench_core (which also reports what the JSONL transcript adds).
        Options(
            model=model,
            tools=[_noop_tool()],
            allowed_tools=["noop"],
            max_retries=0,
            persist_session=False,
            setting_sources=[],
        ),
    )
    elapsed = time.perf_counter() - started
    assert result.num_turns == TURNS and not result.is_error, result
    closer = getattr(getattr(model, "inner", model), "aclose", None)
    if closer is not None:
        await closer()
    return elapsed / (TURNS + 1) * 1000


def _measure(kind: str, make: Callable[[str], Any]) -> tuple[float, float]:
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, kind, str(TURNS), str(REPEATS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        sessions: list[float] = []
        calls: list[float] = []
        for _ in range(REPEATS):
            model = _Timed(make(base_url))
            sessions.append(asyncio.run(_session_ms(model)))
            calls.append(statistics.mean(model.seconds) * 1000)
        return statistics.median(sessions), statistics.median(calls)
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


def _scripted_ms() -> float:
    from loopwright.models.scripted import ScriptedModel, text, tool_call

    def session() -> float:
        model = ScriptedModel([tool_call("noop")] * TURNS + [text("done")])
        return asyncio.run(_session_ms(model))

    return statistics.median(session() for _ in range(REPEATS))


def run() -> list[Row]:
    rows: list[Row] = []
    scripted = _scripted_ms()
    rows.append((f"scripted model, {TURNS}-turn session, per turn", f"{scripted:.3f} ms", "-"))
    for label, kind, make in _providers():
        session, call = _measure(kind, make)
        rows.append(
            (f"{label} over HTTP, {TURNS}-turn session, per turn", f"{session:.3f} ms", "<= 2 ms")
        )
        rows.append((f"{label} model call (wire + HTTP + fake server)", f"{call:.3f} ms", "-"))
        rows.append(
            (f"{label} loop share per turn (turn - call)", f"{session - call:.3f} ms", "< 1 ms")
        )
    return rows


if __name__ == "__main__":
    table = run()
    width = max(len(metric) for metric, _, _ in table)
    print(f"{'metric'.ljust(width)}  {'measured':>12}  target")
    for metric, value, target in table:
        print(f"{metric.ljust(width)}  {value:>12}  {target}")
