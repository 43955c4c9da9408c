"""Host mode start-up: process start → ``initialize`` answered, as an Agent SDK sees it.

The SDKs start their CLI with ``--output-format stream-json --verbose --input-format
stream-json``, write ``initialize`` at once and wait for its ``control_response`` before
anything else: that wait is what every SDK program pays first. Measured for loopwright and,
as the anchor to beat, for the Claude Code CLI bundled in the claude-agent-sdk wheel (when
it is installed). Both get the initialize line the Python SDK sends, on a fresh process,
median of 10 after one unmeasured run; then one scripted turn (initialize → first result)
for loopwright.

The real CLI is kept off the network: its API base URL points at a closed port on
127.0.0.1 and non-essential traffic (telemetry, updates, error reports) is switched off; it
answers initialize without calling the API.

Run: ``python benchmarks/bench_host.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

Row = tuple[str, str, str]

REPEATS = 10
TIMEOUT_S = 60.0
FLAGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
INITIALIZE = {
    "type": "control_request",
    "request_id": "req_1_bench",
    "request": {"subtype": "initialize", "hooks": None},
}
PROMPT = {"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None}


def _loopwright() -> list[str]:
    installed = Path(sys.executable).with_name("loopwright")
    if installed.exists():
        return [str(installed)]
    found = shutil.which("loopwright")
    return [found] if found else [sys.executable, "-m", "loopwright.cli.main"]


def _claude_code() -> list[str] | None:
    try:
        import claude_agent_sdk  # pyright: ignore[reportMissingImports]
    except ImportError:
        return None
    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return [str(bundled)] if bundled.exists() else None


def _offline_env(home: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    return {
        **keep,
        "HOME": home,
        "LOOPWRIGHT_HOME": home,
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # the discard port: nothing listens
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
    }


def _time_until(
    command: list[str], home: str, lines: list[dict[str, object]], wanted: str
) -> float:
    """ms from spawn until a stdout line of type ``wanted`` arrives (after writing ``lines``)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, *FLAGS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=home,
        env=_offline_env(home),
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        process.stdin.flush()
        deadline = started + TIMEOUT_S
        for raw in process.stdout:
            if raw.startswith("{") and json.loads(raw).get("type") == wanted:
                return (time.perf_counter() - started) * 1000
            if time.perf_counter() > deadline:
                break
        raise RuntimeError(f"{command[0]}: no {wanted} line within {TIMEOUT_S:g} s")
    finally:
        process.kill()
        process.wait()


def _median_ms(command: list[str], home: str, lines: list[dict[str, object]], wanted: str) -> float:
    _time_until(command, home, lines, wanted)  # unmeasured: caches, bytecode
    return statistics.median(_time_until(command, home, lines, wanted) for _ in range(REPEATS))


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as home:
        script = Path(home) / "script.yaml"
        script.write_text("- text: hello\n")
        loopwright = [*_loopwright(), "--model", f"scripted:{script}", "--no-session-persistence"]
        real = _claude_code()
        anchor = _median_ms(real, home, [INITIALIZE], "control_response") if real else None
        ours = _median_ms(loopwright, home, [INITIALIZE], "control_response")
        target = f"< {anchor:.0f} ms (the real CLI)" if anchor else "-"
        rows.append(
            ("host: process start -> initialize answered, loopwright", f"{ours:.0f} ms", target)
        )
        if anchor is not None:
            metric = "host: process start -> initialize answered, Claude Code CLI"
            rows.append((metric, f"{anchor:.0f} ms", "anchor"))
        turn = _median_ms(loopwright, home, [INITIALIZE, PROMPT], "result")
        rows.append(("host: process start -> first result, scripted model", f"{turn:.0f} ms", "-"))
    return rows


if __name__ == "__main__":
    table = run()
    width = max(len(metric) for metric, _, _ in table)
    print(f"{'metric'.ljust(width)}  {'measured':>12}  target")
    for metric, value, target in table:
        print(f"{metric.ljust(width)}  {value:>12}  {target}")
