"""Finding and running the ``rg`` binary shipped by the ``ripgrep`` PyPI package."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

RG_TIMEOUT_SECONDS = 60.0


@functools.cache
def ripgrep_binary() -> str | None:
    """The rg executable: the ripgrep package's own file first, then next to Python, then PATH.

    PATH is the last resort so an unrelated or older rg on the machine is not picked up.
    """
    import importlib.metadata  # deferred: ~12 ms, needed once per process

    try:
        distribution = importlib.metadata.distribution("ripgrep")
        for entry in distribution.files or []:
            if entry.name in ("rg", "rg.exe"):
                located = Path(str(distribution.locate_file(entry))).resolve()
                if located.is_file():
                    return str(located)
    except importlib.metadata.PackageNotFoundError:
        pass
    for directory in (Path(sys.executable).parent, Path(sys.prefix) / "bin"):
        candidate = directory / "rg"
        if candidate.is_file():
            return str(candidate)
    return shutil.which("rg")


MISSING_RIPGREP = (
    "ripgrep is not available: install the 'ripgrep' Python package "
    "(pip install ripgrep==14.1.0) or put rg on PATH"
)


@dataclass(frozen=True, slots=True)
class RgOutput:
    stdout: bytes
    stderr: str
    exit_code: int


async def run_rg(args: list[str], cwd: Path, timeout: float = RG_TIMEOUT_SECONDS) -> RgOutput:
    """Run rg to completion; kill it on timeout or cancellation. Raises FileNotFoundError."""
    binary = ripgrep_binary()
    if binary is None:
        raise FileNotFoundError(MISSING_RIPGREP)
    process = await asyncio.create_subprocess_exec(
        binary,
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await asyncio.shield(process.wait())
        raise
    return RgOutput(stdout, stderr.decode("utf-8", errors="replace"), process.returncode or 0)
