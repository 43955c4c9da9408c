"""Process start → first request byte on the wire, per provider, as a user runs it.

``loopwright -p hi --model <provider>:<id>`` is started as a new process with its base URL
pointed at a listening socket on 127.0.0.1 in this process. The clock starts just before
the process is spawned and stops when the socket receives the request's first bytes; the
process is then killed (the answer does not matter here). The median of 10 per provider,
beside the whole scripted-model run for reference.

One unmeasured run per provider comes first, allowed to write bytecode caches (an
installed package has them; a checkout run with PYTHONDONTWRITEBYTECODE=1 would otherwise
compile every loopwright module on every start).

Run: ``python benchmarks/bench_startup.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

Row = tuple[str, str, str]

REPEATS = 10
TIMEOUT_S = 30.0
_PROVIDERS = (
    ("anthropic", "anthropic:claude-sonnet-5-5", "ANTHROPIC_BASE_URL", ""),
    ("openai (Responses)", "openai:gpt-5.5", "OPENAI_BASE_URL", "/v1"),
    ("openai-chat", "openai-chat:gpt-5.5", "OPENAI_BASE_URL", "/v1"),
)


def _cli() -> list[str]:
    installed = Path(sys.executable).with_name("loopwright")
    if installed.exists():
        return [str(installed)]
    found = shutil.which("loopwright")
    return [found] if found else [sys.executable, "-m", "loopwright.cli.main"]


class _FirstByte:
    """A listening socket that notes when the first request bytes arrive."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.arrived = threading.Event()
        self.at = 0.0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            if connection.recv(1):
                self.at = time.perf_counter()
                self.arrived.set()

    def close(self) -> None:
        self.listener.close()


def _first_request_ms(
    model: str, variable: str, suffix: str, home: str, *, warm_up: bool = False
) -> float:
    server = _FirstByte()
    inherited = dict(os.environ)
    if warm_up:
        inherited.pop("PYTHONDONTWRITEBYTECODE", None)
    env = {
        **inherited,
        "ANTHROPIC_API_KEY": "bench",
        "OPENAI_API_KEY": "bench",
        variable: f"http://127.0.0.1:{server.port}{suffix}",
        "LOOPWRIGHT_HOME": home,
    }
    command = [*_cli(), "-p", "hi", "--model", model, "--max-turns", "1"]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        if not server.arrived.wait(TIMEOUT_S):
            raise RuntimeError(f"{model}: no request within {TIMEOUT_S} s")
        return (server.at - started) * 1000
    finally:
        process.kill()
        process.wait()
        server.close()


def _scripted_run_ms(home: str, *, warm_up: bool = False) -> float:
    script = Path(home) / "script.yaml"
    script.write_text("- text: hello\n")
    inherited = dict(os.environ)
    if warm_up:
        inherited.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    subprocess.run(
        [*_cli(), "-p", "hi", "--model", f"scripted:{script}"],
        cwd=home,
        env={**inherited, "LOOPWRIGHT_HOME": home},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return (time.perf_counter() - started) * 1000


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as home:
        _scripted_run_ms(home, warm_up=True)
        scripted = statistics.median(_scripted_run_ms(home) for _ in range(REPEATS))
        rows.append(
            ("process start -> exit, scripted model (whole run)", f"{scripted:.0f} ms", "-")
        )
        for label, model, variable, suffix in _PROVIDERS:
            _first_request_ms(model, variable, suffix, home, warm_up=True)
            samples = [_first_request_ms(model, variable, suffix, home) for _ in range(REPEATS)]
            rows.append(
                (
                    f"process start -> first request, {label}",
                    f"{statistics.median(samples):.0f} ms",
                    "<= 150 ms",
                )
            )
    return rows


if __name__ == "__main__":
    table = run()
    width = max(len(metric) for metric, _, _ in table)
    print(f"{'metric'.ljust(width)}  {'measured':>12}  target")
    for metric, value, target in table:
        print(f"{metric.ljust(width)}  {value:>12}  {target}")
