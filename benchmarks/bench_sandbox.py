"""What the sandbox's protections cost per Bash command.

- a sandboxed ``true`` through the Bash tool, against the same command unsandboxed;
- bwrap with the user namespace and no capabilities, against bwrap without them (the
  flags before the sandbox held as root), both running ``true`` directly;
- the protected-path snapshot and check around one command, in a working dir of 2,000
  entries holding a git repository.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from loopwright.sandbox import BwrapSandbox, SandboxSettings
from loopwright.sandbox.host_support import ISOLATION_FLAGS
from loopwright.sandbox.quarantine import ProtectedPathsWatch
from loopwright.tools.base import SessionState, ToolContext, ToolServices
from loopwright.tools.bash import BashTool
from loopwright.tools.command_wrapper import WrapsCommands

RUNS = 30
_OLD_FLAGS = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc"]
_OLD_FLAGS += ["--unshare-uts", "--unshare-net"]


def median_ms(measure: Callable[[], object], runs: int = RUNS) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        measure()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bash_tool_ms(work: Path, wrapper: WrapsCommands | None) -> float:
    services = ToolServices(command_wrapper=wrapper)
    ctx = ToolContext(state=SessionState(cwd=work), tool_use_id="b", services=services)

    async def once() -> None:
        result = await BashTool().call({"command": "true"}, ctx)
        assert not result.is_error, result.content

    return median_ms(lambda: asyncio.run(once()))


def bwrap_ms(bwrap: str, flags: list[str]) -> float:
    argv = [bwrap, *flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
    return median_ms(lambda: subprocess.run(argv, check=True))


def run() -> list[tuple[str, str, str]]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return [("sandbox: bwrap not installed", "skipped", "-")]
    with tempfile.TemporaryDirectory() as raw:
        work = Path(raw) / "work"
        work.mkdir()
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        for index in range(2000):
            (work / f"file-{index}.txt").write_text("x")
        box = BwrapSandbox(SandboxSettings(), [work], quarantine_dir=Path(raw) / "q")
        try:
            sandboxed = bash_tool_ms(work, box)
            plain = bash_tool_ms(work, None)
            held = bwrap_ms(bwrap, list(ISOLATION_FLAGS))
            old = bwrap_ms(bwrap, _OLD_FLAGS)
            watch = median_ms(lambda: ProtectedPathsWatch([work], Path(raw) / "q").settle())
            pins = median_ms(lambda: box.bwrap_args(str(work)))
        finally:
            box.close()
    return [
        ("sandbox: Bash `true`, sandboxed (ms)", f"{sandboxed:.1f}", f"unsandboxed {plain:.1f}"),
        ("sandbox: bwrap `true`, userns + no caps (ms)", f"{held:.1f}", f"old flags {old:.1f}"),
        ("sandbox: protected-path snapshot+check (ms)", f"{watch:.2f}", "< 5"),
        ("sandbox: bwrap args incl. pins, 2k entries (ms)", f"{pins:.2f}", "< 20"),
    ]


def main() -> int:
    for row in run():
        print(*row, sep="  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
